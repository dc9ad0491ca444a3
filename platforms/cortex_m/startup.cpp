// Start-up of etsb binaries on every Cortex-M board of platforms/cortex_m
// (the MPS3 AN547's Cortex-M55, the MPS2 AN386's Cortex-M4, the MPS2 AN505's
// Cortex-M33) under QEMU, one file for all: what differs between the boards
// is their memories, which it takes from the linker script's symbols
// (sections.ld, after the board's <board>.ld). The vector table, a reset
// handler that prepares the C++ runtime and calls main(argc, argv), and a
// fault handler that ends the run with a status instead of hanging. Input
// and output go through Arm semihosting (syscalls.cpp): QEMU's
// `-semihosting-config enable=on` lets the program use the host's stdout,
// stderr and files, and exit() ends QEMU with the program's status.

#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {
// From the linker script (sections.ld): .data's image and place, .bss, the stack's top.
extern uint32_t __data_load__, __data_start__, __data_end__, __bss_start__, __bss_end__, __StackTop;
// newlib: runs the static constructors. syscalls.cpp: stdin, stdout and stderr
// as the host's console, over semihosting.
void __libc_init_array(void);
void etsb_open_console(void);

// crti.o and crtbegin.o are not linked (-nostartfiles: this file starts the
// program), yet newlib's __libc_init_array calls _init and static
// destructors register against __dso_handle.
void _init(void) {}
void _fini(void) {}
void* __dso_handle = nullptr;

[[noreturn]] void Reset_Handler(void);
[[noreturn]] void Fault_Handler(void);
}

// The program's main, under a name of its own: C++ forbids calling main itself.
extern "C" int program_main(int argc, char** argv) __asm__("main");

namespace {

// Semihosting operations (Arm's "Semihosting for AArch32 and AArch64").
constexpr int kSysWrite0 = 0x04;
constexpr int kSysGetCmdline = 0x15;
constexpr int kSysExitExtended = 0x20;
constexpr uint32_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit
constexpr int kFaultStatus = 134;                // what a shell reports for SIGABRT

// A semihosting call: the operation in r0, its argument in r1, the result in r0.
int semihost(int operation, const void* argument) {
  register int r0 __asm("r0") = operation;
  register const void* r1 __asm("r1") = argument;
  __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

// The command line QEMU passes (the -kernel file, then the words of
// -append), split at spaces into argv.
char command_line[512];
constexpr int kMaxArgs = 32;
char* arguments[kMaxArgs + 1];

int split_command_line() {
  struct {
    char* buffer;
    int length;
  } block = {command_line, sizeof(command_line) - 1};
  if (semihost(kSysGetCmdline, &block) != 0) {
    return 0;
  }
  int argc = 0;
  for (char* p = command_line; *p != '\0' && argc < kMaxArgs;) {
    while (*p == ' ') {
      *p++ = '\0';
    }
    if (*p == '\0') {
      break;
    }
    arguments[argc++] = p;
    while (*p != '\0' && *p != ' ') {
      ++p;
    }
  }
  arguments[argc] = nullptr;
  return argc;
}

}  // namespace

void Reset_Handler(void) {
  // Full access to the FPU (and the Cortex-M55's MVE): coprocessors 10 and
  // 11 in CPACR, at the same address on every Armv7-M and Armv8-M core,
  // before any floating-point instruction runs.
  *reinterpret_cast<volatile uint32_t*>(0xE000ED88) |= 0xFu << 20;
  __asm volatile("dsb\n\tisb" ::: "memory");
  std::memcpy(&__data_start__, &__data_load__,
              reinterpret_cast<char*>(&__data_end__) - reinterpret_cast<char*>(&__data_start__));
  std::memset(&__bss_start__, 0, reinterpret_cast<char*>(&__bss_end__) - reinterpret_cast<char*>(&__bss_start__));
  etsb_open_console();
  __libc_init_array();
  int argc = split_command_line();
  std::exit(program_main(argc, arguments));
}

// Any fault (hard, memory, bus, usage) ends the run with a message and
// status 134, without touching the C library, whose state may be the cause.
void Fault_Handler(void) {
  semihost(kSysWrite0, "etsb: fault on the board, run ended\n");
  const uint32_t block[2] = {kApplicationExit, kFaultStatus};
  semihost(kSysExitExtended, block);
  for (;;) {
  }
}

using Handler = void (*)(void);

// The vector table: initial stack pointer, reset, then the faults (NMI,
// HardFault, MemManage, BusFault, UsageFault, and SecureFault on Armv8-M;
// reserved on the Cortex-M4). No interrupt is enabled, so the table ends there.
extern "C" __attribute__((section(".vectors"), used)) const Handler etsb_vectors[8] = {
    reinterpret_cast<Handler>(&__StackTop), Reset_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
};
