# CMake toolchain for a Cortex-M55 (QEMU's mps3-an547 board) without an
# operating system: etsb's platform cortex-m55; board.cmake says the rest.
#
#   cmake -G Ninja -S <project> -B <build> -Detsb_DIR=$(etsb --cmakedir) \
#         -DCMAKE_TOOLCHAIN_FILE=$(etsb --cmakedir)/toolchains/cortex-m55.cmake \
#         -DEXECUTORCH_ROOT=<an ExecuTorch tree> -DETSB_CONFIG=size
set(ETSB_PLATFORM cortex-m55)
include("${CMAKE_CURRENT_LIST_DIR}/board.cmake")
