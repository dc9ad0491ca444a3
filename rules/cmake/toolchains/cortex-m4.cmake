# CMake toolchain for a Cortex-M4 (QEMU's mps2-an386 board) without an
# operating system: etsb's platform cortex-m4; board.cmake says the rest.
#
#   cmake -G Ninja -S <project> -B <build> -Detsb_DIR=$(etsb --cmakedir) \
#         -DCMAKE_TOOLCHAIN_FILE=$(etsb --cmakedir)/toolchains/cortex-m4.cmake \
#         -DEXECUTORCH_ROOT=<an ExecuTorch tree> -DETSB_CONFIG=size
set(ETSB_PLATFORM cortex-m4)
include("${CMAKE_CURRENT_LIST_DIR}/board.cmake")
