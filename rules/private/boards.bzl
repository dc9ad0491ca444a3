"""etsb's boards (platforms without an operating system) as BUILD files select() them.

The boards are BOARDS of rules/private/platforms_table.bzl (generated from
tools/selective_build/driver/platforms.py): each one's config_setting in
rules/BUILD, and its support in platforms/cortex_m.
"""

load(":private/platforms_table.bzl", "BOARDS", "HOST", "PLATFORMS")
load(":private/shim.bzl", "SELECT_DEFAULT", "SIZE_CONFIG_SETTING", "etsb_label")

# The platforms without an operating system, whose binaries link the deploy
# runner in every configuration (the development runner needs files, clocks and
# dynamic loading): each platform's config_setting, and its setting in the size
# configuration (which select() then prefers to both SIZE_CONFIG_SETTING and it).
BARE_METAL_SETTINGS = [
    etsb_label("//rules:" + spec["setting"] + suffix)
    for spec in BOARDS.values()
    for suffix in ("", "_size")
]

# The platforms other than the host with an operating system (x86_64-linux,
# aarch64-linux): each one's config_setting in rules/BUILD, and its setting in the
# size configuration, as for the boards.
CROSS_HOSTED_SETTINGS = [
    etsb_label("//rules:" + platform.replace("-", "_") + suffix)
    for platform, spec in PLATFORMS.items()
    if platform != HOST and spec["hosted"]
    for suffix in ("", "_size")
]

# Where a binary is built to ship (what `runtime = "auto"` of et_model_binary
# links the static runtime, the deploy runner and dtype-selective kernels for): the
# size configuration and every platform but the host, each setting with whether it
# is of the size configuration. select() prefers a platform's `_size` setting to
# both the size configuration's and the platform's, so a key never matches twice.
SHIPPING_SETTINGS = dict(
    [(SIZE_CONFIG_SETTING, True)] +
    [(setting, setting.endswith("_size")) for setting in BARE_METAL_SETTINGS + CROSS_HOSTED_SETTINGS],
)

# The board support of each board's config_setting (rules/BUILD): its start-up
# code and memories (`//platforms/cortex_m:<board>`), which the tree's runtime
# links (rules/executorch_tree/BUILD.overlay).
BOARD_SUPPORT = {
    etsb_label("//rules:" + spec["setting"]): etsb_label("//platforms/cortex_m:" + spec["board"])
    for spec in BOARDS.values()
}

def on_boards(value, elsewhere):
    """A `select()` of `value` on every board and `elsewhere` on other platforms.

    Args:
      value: what every board takes.
      elsewhere: what the other platforms take.

    Returns:
      The select().
    """
    choices = {setting: value for setting in BOARD_SUPPORT}
    choices[SELECT_DEFAULT] = elsewhere
    return select(choices)

def board_support(elsewhere):
    """A `select()` of each board's support library on its board, `elsewhere` on other platforms.

    Args:
      elsewhere: what the other platforms take.

    Returns:
      The select().
    """
    choices = {setting: [support] for setting, support in BOARD_SUPPORT.items()}
    choices[SELECT_DEFAULT] = elsewhere
    return select(choices)

def count_instructions_copts():
    """The flag that makes a board's start-up and deploy runner count each run's instructions.

    On with `--define etsb_count_instructions=yes` (rules/BUILD's `count_instructions`):
    the deploy runner then prints `instructions: N` on stderr after running the method.

    Returns:
      A `select()` of the compile flags.
    """
    return select({
        etsb_label("//rules:count_instructions"): ["-DETSB_COUNT_INSTRUCTIONS=1"],
        SELECT_DEFAULT: [],
    })
