// What the deploy runner (deploy.cpp) takes from the binary's generated deploy
// source (`etsb deploy-source`): the embedded program and inputs, if any, and
// the static memory the method runs in, sized from the program at build time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etsb_deploy {

// The program's bytes (aligned as ExecuTorch requires), when embedded; else null.
extern const uint8_t* const kProgram;
extern const size_t kProgramSize;

// The embedded inputs of the first method, in order: each tensor's bytes.
extern const size_t kInputCount;
extern const uint8_t* const kInputs[];
extern const size_t kInputSizes[];

// The method's allocator (its values, tensors and instruction tables).
extern uint8_t method_pool[];
extern const size_t kMethodPoolSize;
// The method's planned buffers (activations), and input files read at run time.
extern uint8_t planned_pool[];
extern const size_t kPlannedPoolSize;
// Kernels' scratch (the runtime's temp allocator); none when the size is 0.
extern uint8_t temp_pool[];
extern const size_t kTempPoolSize;

}  // namespace etsb_deploy
