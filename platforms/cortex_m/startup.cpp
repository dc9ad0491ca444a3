// Start-up of etsb binaries on every Cortex-M board of platforms/cortex_m
// (the MPS3 AN547's Cortex-M55, the MPS2 AN386's Cortex-M4, the MPS2 AN505's
// Cortex-M33) under QEMU, one file for all: what differs between the boards
// is their memories, which it takes from the linker script's symbols
// (sections.ld, after the board's <board>.ld). The vector table, a reset
// handler that prepares the C++ runtime and calls main(argc, argv), and a
// fault handler that ends the run with a status instead of hanging, and, when
// built to count instructions (ETSB_COUNT_INSTRUCTIONS=1: rules/BUILD's
// count_instructions), the core's clock counted from reset (SysTick,
// etsb_board_instructions). Input
// and output go through Arm semihosting (syscalls.cpp): QEMU's
// `-semihosting-config enable=on` lets the program use the host's stdout,
// stderr and files, and exit() ends QEMU with the program's status.

#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifndef ETSB_COUNT_INSTRUCTIONS
#define ETSB_COUNT_INSTRUCTIONS 0
#endif

extern "C" {
// From the linker script (sections.ld): .data's image and place, .bss, the stack's top.
extern uint32_t __data_load__, __data_start__, __data_end__, __bss_start__, __bss_end__, __StackTop, __StackLimit;
// From the board's <board>.ld: the frequency of the core's clock as QEMU models the board (its address is the value).
extern char __etsb_core_clock_hz[];
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
[[noreturn]] void etsb_report_fault(void);
#if ETSB_COUNT_INSTRUCTIONS
void SysTick_Handler(void);
uint64_t etsb_board_instructions(void);
#endif
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
constexpr int kUsageStatus = 2;                  // a command line the program cannot take

// A semihosting call: the operation in r0, its argument in r1, the result in r0.
int semihost(int operation, const void* argument) {
  register int r0 __asm("r0") = operation;
  register const void* r1 __asm("r1") = argument;
  __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

// Ends the run with `message` on the console and `status`, without the C library.
[[noreturn]] void end_run(const char* message, uint32_t status) {
  semihost(kSysWrite0, message);
  const uint32_t block[2] = {kApplicationExit, status};
  semihost(kSysExitExtended, block);
  for (;;) {
  }
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
    // QEMU refuses a command line longer than the buffer: say so, rather than run with none.
    end_run("etsb: command line over 511 bytes\n", kUsageStatus);
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

// A memory-mapped system register of the core.
volatile uint32_t& reg(uintptr_t address) { return *reinterpret_cast<volatile uint32_t*>(address); }

// The system control registers the stack's guard and the fault report read.
constexpr uintptr_t kHandlerControl = 0xE000ED24;    // SHCSR
constexpr uintptr_t kConfigurableFaults = 0xE000ED28;  // CFSR: MMFSR, BFSR, UFSR
constexpr uintptr_t kMemFaultAddress = 0xE000ED34;   // MMFAR
constexpr uint32_t kStackLimitFault = 1u << 20;      // UFSR.STKOF (Armv8-M)
constexpr uint32_t kMemFaultOnStacking = 1u << 4;    // MMFSR.MSTKERR
constexpr uint32_t kMemFaultOnData = 1u << 1;        // MMFSR.DACCVIOL
constexpr uint32_t kMemFaultAddressValid = 1u << 7;  // MMFSR.MMARVALID
// Armv7-M's guard: an MPU region of this many bytes at the stack's limit that
// nothing may touch (a function whose frame is larger may step over it).
constexpr uint32_t kGuardBytes = 1024;

// The stack may not pass its reserve's limit (sections.ld's __StackLimit): the
// core faults instead of letting it overwrite the heap and the program's data.
// Armv8-M checks the main stack pointer against MSPLIM; Armv7-M has no such
// register, so a region of its MPU at the limit takes no access, and the
// MemManage fault is enabled so that a push into it is taken there (the run
// then ends with the fault's report) rather than locking the core up.
void guard_the_stack() {
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  __asm volatile("msr msplim, %0" ::"r"(&__StackLimit));
#else
  constexpr uintptr_t kMpuControl = 0xE000ED94, kMpuRegion = 0xE000ED98, kMpuBase = 0xE000ED9C,
                      kMpuAttributes = 0xE000EDA0;
  constexpr uint32_t kNoAccessNeverExecute = 1u << 28;  // XN, AP = 0
  constexpr uint32_t kSizeOfGuard = 9u << 1;             // SIZE = log2(1024) - 1
  constexpr uint32_t kRegionOn = 1u, kMpuOn = 1u, kDefaultMapForPrivileged = 1u << 2;
  constexpr uint32_t kMemFaultEnabled = 1u << 16;  // SHCSR.MEMFAULTENA
  static_assert(kGuardBytes == 1024, "the region's SIZE field says 1 KiB");
  reg(kMpuRegion) = 0;
  reg(kMpuBase) = reinterpret_cast<uintptr_t>(&__StackLimit);
  reg(kMpuAttributes) = kNoAccessNeverExecute | kSizeOfGuard | kRegionOn;
  reg(kHandlerControl) |= kMemFaultEnabled;
  reg(kMpuControl) = kDefaultMapForPrivileged | kMpuOn;
#endif
  __asm volatile("dsb\n\tisb" ::: "memory");
}

// Whether the fault being handled is the stack's crossing of its limit:
// Armv8-M's stack-limit fault, or a MemManage fault pushing into Armv7-M's guard.
bool stack_overflowed() {
  const uint32_t status = reg(kConfigurableFaults);
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  return (status & kStackLimitFault) != 0;
#else
  if ((status & kMemFaultOnStacking) != 0) return true;
  const uintptr_t limit = reinterpret_cast<uintptr_t>(&__StackLimit);
  const uintptr_t address = reg(kMemFaultAddress);
  return (status & (kMemFaultOnData | kMemFaultAddressValid)) == (kMemFaultOnData | kMemFaultAddressValid) &&
         address - limit < kGuardBytes;
#endif
}

#if ETSB_COUNT_INSTRUCTIONS
// SysTick (the same registers on every Armv7-M and Armv8-M core): it counts
// the core's clock down from its largest reload, 2^24 - 1, and its exception
// counts the wraps.
constexpr uintptr_t kSysTickControl = 0xE000E010;
constexpr uintptr_t kSysTickReload = 0xE000E014;
constexpr uintptr_t kSysTickCurrent = 0xE000E018;
constexpr uintptr_t kInterruptControl = 0xE000ED04;  // ICSR
constexpr uint32_t kSysTickPeriod = 1u << 24;
constexpr uint32_t kSysTickPending = 1u << 26;  // ICSR.PENDSTSET
// Enabled, its exception on each wrap, counting the processor's clock.
constexpr uint32_t kSysTickOn = 0x7;
volatile uint32_t sys_tick_wraps;

void start_sys_tick() {
  reg(kSysTickReload) = kSysTickPeriod - 1;
  reg(kSysTickCurrent) = 0;
  reg(kSysTickControl) = kSysTickOn;
}
#endif

}  // namespace

#if ETSB_COUNT_INSTRUCTIONS
void SysTick_Handler(void) {
  sys_tick_wraps = sys_tick_wraps + 1;
}

// The core's clock cycles since reset, as nanoseconds of the board's clock:
// under QEMU's `-icount shift=0` (the boards' emulator command,
// driver/platforms.py), whose virtual clock advances 1 ns for each
// instruction, the instructions executed since reset (to within one cycle:
// 40 instructions at the AN386's 25 MHz, 50 at the AN505's 20 MHz, 31.25 at
// the AN547's 32 MHz). Deterministic: the same program and inputs give the same count.
uint64_t etsb_board_instructions(void) {
  __asm volatile("cpsid i" ::: "memory");
  uint32_t wraps = sys_tick_wraps;
  uint32_t current = reg(kSysTickCurrent);
  if ((reg(kInterruptControl) & kSysTickPending) != 0) {
    // It wrapped and its exception waits: read after the wrap, and count it.
    current = reg(kSysTickCurrent);
    ++wraps;
  }
  __asm volatile("cpsie i" ::: "memory");
  uint64_t cycles = static_cast<uint64_t>(wraps) * kSysTickPeriod + (kSysTickPeriod - 1 - current);
  const uint64_t hz = reinterpret_cast<uintptr_t>(__etsb_core_clock_hz);
  return cycles * 1000000000u / hz;
}
#endif

void Reset_Handler(void) {
  guard_the_stack();
  // Full access to the FPU (and the Cortex-M55's MVE): coprocessors 10 and
  // 11 in CPACR, at the same address on every Armv7-M and Armv8-M core,
  // before any floating-point instruction runs.
  *reinterpret_cast<volatile uint32_t*>(0xE000ED88) |= 0xFu << 20;
  __asm volatile("dsb\n\tisb" ::: "memory");
  std::memcpy(&__data_start__, &__data_load__,
              reinterpret_cast<char*>(&__data_end__) - reinterpret_cast<char*>(&__data_start__));
  std::memset(&__bss_start__, 0, reinterpret_cast<char*>(&__bss_end__) - reinterpret_cast<char*>(&__bss_start__));
#if ETSB_COUNT_INSTRUCTIONS
  start_sys_tick();
#endif
  etsb_open_console();
  __libc_init_array();
  int argc = split_command_line();
  std::exit(program_main(argc, arguments));
}

// Any fault (hard, memory, bus, usage) ends the run with a message and
// status 134, without touching the C library, whose state may be the cause.
// On the stack's top again first: a fault may come from its overflow.
__attribute__((naked)) void Fault_Handler(void) {
  __asm volatile(
      "ldr r0, =__StackTop\n\t"
      "mov sp, r0\n\t"
      "b etsb_report_fault\n\t"
      ".ltorg");
}

// Says which fault: a stack overflow by name.
void etsb_report_fault(void) {
  if (stack_overflowed()) {
    end_run("etsb: stack overflow, run ended\n", kFaultStatus);
  }
  end_run("etsb: fault on the board, run ended\n", kFaultStatus);
}

using Handler = void (*)(void);

// The vector table: initial stack pointer, reset, then the faults (NMI,
// HardFault, MemManage, BusFault, UsageFault, and SecureFault on Armv8-M;
// reserved on the Cortex-M4), the unused system exceptions (reserved,
// SVCall, DebugMonitor, PendSV), then SysTick's. No other interrupt is
// enabled, so the table ends there.
extern "C" __attribute__((section(".vectors"), used)) const Handler etsb_vectors[16] = {
    reinterpret_cast<Handler>(&__StackTop), Reset_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    nullptr, nullptr, nullptr, Fault_Handler,
#if ETSB_COUNT_INSTRUCTIONS
    Fault_Handler, nullptr, Fault_Handler, SysTick_Handler,
#else
    Fault_Handler, nullptr, Fault_Handler, Fault_Handler,
#endif
};
