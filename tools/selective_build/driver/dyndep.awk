# Which objects a library that takes only some (a cxx_library with
# objects_of, see driver/cxx.py) archives: found at build time, from the list
# of selected sources a generated file gives, and told to ninja as a dyndep
# file, which makes just those objects inputs of the archive (so only they
# are compiled).
#
#   awk -v archive=ARCHIVE -v dyndep=DYNDEP -v members=MEMBERS -v label=LABEL \
#       -f dyndep.awk RSP LIST
#
# RSP maps every source the library may take to its object, "source=object"
# words separated by blanks; LIST names the selected sources, one a line
# (empty lines are skipped). Writes MEMBERS, the selected objects one a line
# (the archive's members, in LIST's order), and DYNDEP, in ninja's dyndep
# format. A selected source that RSP does not map fails the action, naming
# the library LABEL.
#
# A line "=SOURCE" of LIST takes the object RSP's word "=SOURCE=OBJECT" maps
# it to (the one its library compiles, where this library compiles its own
# with other flags: kernel-sources --mark-plain), else the usual one.
#
# RSP's words "?FILE=ARCHIVE=SOURCE" name an archive linked only if SOURCE
# (or another source of the same FILE) is selected: FILE, which the link
# reads in the archive's place (an @file), then names the archive, and the
# archive becomes an input (so that it is built); else FILE is empty.

FILENAME == ARGV[1] {
    for (i = 1; i <= NF; i++) {
        if (substr($i, 1, 1) == "?") {
            word = substr($i, 2)
            at = index(word, "=")
            file = substr(word, 1, at - 1)
            word = substr(word, at + 1)
            at = index(word, "=")
            if (!(file in guarded)) {
                files[++nfiles] = file
                guarded[file] = substr(word, 1, at - 1)
            }
            guards[substr(word, at + 1)] = guards[substr(word, at + 1)] SUBSEP file
            continue
        }
        if (substr($i, 1, 1) == "=") {
            word = substr($i, 2)
            at = index(word, "=")
            plain[substr(word, 1, at - 1)] = substr(word, at + 1)
            continue
        }
        at = index($i, "=")
        object[substr($i, 1, at - 1)] = substr($i, at + 1)
    }
    next
}

$0 == "" { next }

substr($0, 1, 1) == "=" {
    $0 = substr($0, 2)
    if ($0 in plain)
        object[$0] = plain[$0]
}

!($0 in object) {
    print "etsb: " label ": " $0 " is not a source of its objects_of libraries" > "/dev/stderr"
    failed = 1
    exit 1
}

{
    taken = taken " " object[$0]
    print object[$0] > members
    count = split(guards[$0], named, SUBSEP)
    for (i = 2; i <= count; i++)
        needed[named[i]] = 1
}

END {
    if (failed)
        exit 1
    printf "" > members  # the file exists even when nothing is selected
    for (i = 1; i <= nfiles; i++) {
        if (files[i] in needed) {
            print guarded[files[i]] > files[i]
            taken = taken " " guarded[files[i]]
        } else
            printf "" > files[i]
    }
    print "ninja_dyndep_version = 1" > dyndep
    print "build " archive ": dyndep" (taken == "" ? "" : " |" taken) > dyndep
}
