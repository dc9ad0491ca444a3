# The version find_package(etsb <version>) checks: etsb's, from its Python package.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../../tools/selective_build/__init__.py" _etsb_version_line
     REGEX "^__version__")
string(REGEX MATCH "[0-9]+(\\.[0-9]+)*" PACKAGE_VERSION "${_etsb_version_line}")
if(PACKAGE_FIND_VERSION AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
