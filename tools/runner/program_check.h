// Checks the deploy runner makes on a program read at run time, that
// ExecuTorch leaves to its caller: every kernel call names an operator of its
// plan, and every operator has a name the runtime can look up. (ExecuTorch's
// Method::init records either fault as an error, but a later call that
// resolves clears it; the method then loads and its execution calls through
// an unset kernel slot. The development runner sees the error in the
// runtime's log, which the deploy build has not.)
//
// It reads the program's flatbuffer directly, in the binary format every
// flatbuffer has (a table starts with the signed offset back to its vtable; a
// vtable holds two 16-bit sizes, then each field's 16-bit offset in the table,
// 0 for a field left out; a vector is a 32-bit length and its elements; a
// table, vector or union field holds a 32-bit offset forward from itself),
// with program.fbs's field numbers. Only after ExecuTorch's verifier has
// accepted the buffer: every offset followed here then lies inside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace etsb_program_check {

// program.fbs: Program.execution_plan; ExecutionPlan.chains and .operators;
// Operator.name and .overload; Chain.instructions; Instruction.instr_args (a
// union: its type, then its value); KernelCall.op_index; the union's KernelCall type.
constexpr int kProgramPlans = 1, kPlanChains = 5, kPlanOperators = 6, kChainInstructions = 2;
constexpr int kOperatorName = 0, kOperatorOverload = 1;
// The runtime looks an operator up by "name.overload" in a buffer of this many bytes.
constexpr uint32_t kOperatorNameBytes = 100;
constexpr int kInstructionArgsType = 0, kInstructionArgs = 1, kKernelCallOpIndex = 0;
constexpr uint8_t kKernelCall = 1;

inline uint32_t read_u32(const uint8_t* at) {
  uint32_t value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

// Where field `index` of `table` lies; null when the table leaves it out.
inline const uint8_t* field(const uint8_t* table, int index) {
  int32_t back;
  std::memcpy(&back, table, sizeof(back));
  const uint8_t* vtable = table - back;
  uint16_t vtable_size, offset;
  std::memcpy(&vtable_size, vtable, sizeof(vtable_size));
  if (4 + 2 * index + 2 > vtable_size) return nullptr;
  std::memcpy(&offset, vtable + 4 + 2 * index, sizeof(offset));
  return offset != 0 ? table + offset : nullptr;
}

// The table, vector or union value field `index` of `table` points at; null when left out.
inline const uint8_t* child(const uint8_t* table, int index) {
  const uint8_t* at = field(table, index);
  return at != nullptr ? at + read_u32(at) : nullptr;
}

inline uint32_t length(const uint8_t* vector) { return vector != nullptr ? read_u32(vector) : 0; }

// Element `i` of a vector of tables.
inline const uint8_t* element(const uint8_t* vector, uint32_t i) {
  const uint8_t* at = vector + 4 + 4 * static_cast<size_t>(i);
  return at + read_u32(at);
}

// Whether every operator of `operators` (a vector of Operator tables) has a
// name, whose "name.overload" fits the runtime's buffer.
inline bool operators_are_named(const uint8_t* operators) {
  for (uint32_t o = 0; o < length(operators); ++o) {
    const uint8_t* op = element(operators, o);
    const uint8_t* name = child(op, kOperatorName);
    if (name == nullptr) return false;
    const uint32_t overload = length(child(op, kOperatorOverload));
    if (static_cast<uint64_t>(length(name)) + (overload > 0 ? 1 + overload : 0) >= kOperatorNameBytes) return false;
  }
  return true;
}

// Whether every plan of the verified program flatbuffer at `buffer` names its
// operators, and every kernel call names one of its plan's operators.
inline bool kernel_calls_name_known_operators(const uint8_t* buffer) {
  const uint8_t* program = buffer + read_u32(buffer);
  const uint8_t* plans = child(program, kProgramPlans);
  for (uint32_t p = 0; p < length(plans); ++p) {
    const uint8_t* plan = element(plans, p);
    if (!operators_are_named(child(plan, kPlanOperators))) return false;
    const uint32_t operators = length(child(plan, kPlanOperators));
    const uint8_t* chains = child(plan, kPlanChains);
    for (uint32_t c = 0; c < length(chains); ++c) {
      const uint8_t* instructions = child(element(chains, c), kChainInstructions);
      for (uint32_t i = 0; i < length(instructions); ++i) {
        const uint8_t* instruction = element(instructions, i);
        const uint8_t* type = field(instruction, kInstructionArgsType);
        if (type == nullptr || *type != kKernelCall) continue;
        const uint8_t* call = child(instruction, kInstructionArgs);
        if (call == nullptr) return false;
        const uint8_t* op_at = field(call, kKernelCallOpIndex);
        const int32_t op_index = op_at != nullptr ? static_cast<int32_t>(read_u32(op_at)) : 0;
        if (op_index < 0 || static_cast<uint32_t>(op_index) >= operators) return false;
      }
    }
  }
  return true;
}

}  // namespace etsb_program_check
