// --profile FILE: where a method's time goes, per instruction. The runner
// gives Program::load_method this EventTracer; ExecuTorch's Method::execute
// (libexecutorch.so is built with its event tracer hooks) then names each
// instruction it runs (set_chain_debug_handle: its chain and index) and opens
// a profiling event around each kernel call ("OPERATOR_CALL"), delegate call
// ("DELEGATE_CALL"), jump, move and free, and one around the whole execution
// ("Method::execute"). Each event is timed with the steady clock and added to
// its instruction's calls, total and least nanoseconds, in a table sized from
// the method's instruction count before it loads: nothing is allocated while
// the method runs. The events a backend logs inside a delegate call are not
// broken down (the call is timed as a whole).
//
// The file (JSON; every time in nanoseconds):
//   {"format": "etsb-profile-1", "method": NAME, "runs": N,
//    "traced": true if the runtime called the tracer (else only "run" is filled),
//    "run": {"calls", "ns", "min_ns"}: the runner's own timing of each run,
//    "execute": {"calls", "ns", "min_ns"}: the runtime's "Method::execute" events,
//    "instructions": [{"chain", "index", "kind", "calls", "ns", "min_ns"}, ...]}
// with kind one of operator, delegate, jump, move, free; instructions in
// (chain, index) order, each instruction that ran once. Of several runs the
// first (caches and pages warming up) is left out: "runs" counts the others.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/core/event_tracer.h>

namespace etsb_runner {

using executorch::runtime::AllocatorID;
using executorch::runtime::ChainID;
using executorch::runtime::DebugHandle;
using executorch::runtime::DelegateDebugIdType;
using executorch::runtime::DelegateDebugIntId;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::EventTracerFilterBase;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::Result;

// The calls, total and least nanoseconds of one timed thing.
struct Timing {
  uint64_t calls = 0, ns = 0, min_ns = UINT64_MAX;
  void add(uint64_t elapsed) {
    ++calls;
    ns += elapsed;
    if (elapsed < min_ns) min_ns = elapsed;
  }
};

// One instruction's times; kind indexes kKinds, -1 for a free slot.
struct InstructionTiming {
  ChainID chain = 0;
  DebugHandle index = 0;
  int kind = -1;
  Timing timing;
};

// The event names Method::execute gives per instruction, and their kinds' names in the file.
inline const char* const kEvents[] = {"OPERATOR_CALL", "DELEGATE_CALL", "JF_CALL", "MOVE_CALL", "FREE_CALL"};
inline const char* const kKinds[] = {"operator", "delegate", "jump", "move", "free"};
constexpr int64_t kEventKinds = 5, kExecuteEvent = 5, kOtherEvent = 6;

// The parts of ExecuTorch's EventTracer interface the profile has no use
// for (allocations, logged values, a backend's own events): nothing recorded.
class QuietTracer : public executorch::runtime::EventTracer {
 public:
  void create_event_block(const char*) override {}
  EventTracerEntry start_profiling_delegate(const char*, DelegateDebugIntId) override { return EventTracerEntry{}; }
  void end_profiling_delegate(EventTracerEntry, const void*, size_t) override {}
  void log_profiling_delegate(const char*, DelegateDebugIntId, et_timestamp_t, et_timestamp_t, const void*,
                              size_t) override {}
  void track_allocation(AllocatorID, size_t) override {}
  AllocatorID track_allocator(const char*) override { return 0; }
  Result<bool> log_evalue(const executorch::runtime::EValue&, LoggedEValueType) override { return false; }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                const executorch::aten::Tensor&) override {
    return false;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                const executorch::runtime::ArrayRef<executorch::aten::Tensor>) override {
    return false;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const int&) override { return false; }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const bool&) override { return false; }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const double&) override {
    return false;
  }
  void set_delegation_intermediate_output_filter(EventTracerFilterBase*) override {}
};

// The tracer: each instruction's events timed into its slot.
class Profile final : public QuietTracer {
 public:
  // A table for `instructions` instructions (MethodMeta::num_instructions(),
  // over all chains), open-addressed at twice that so that it never fills.
  explicit Profile(size_t instructions) : slots_(2 * instructions + 1) {}

  EventTracerEntry start_profiling(const char* name, ChainID chain_id, DebugHandle debug_handle) override {
    EventTracerEntry entry{};
    entry.event_id = kOtherEvent;
    for (int64_t kind = 0; kind < kEventKinds && entry.event_id == kOtherEvent; ++kind) {
      if (std::strcmp(name, kEvents[kind]) == 0) entry.event_id = kind;
    }
    if (entry.event_id == kOtherEvent && std::strcmp(name, "Method::execute") == 0) entry.event_id = kExecuteEvent;
    // The runtime passes no chain or handle: it set them for the instruction.
    entry.chain_id = chain_id == executorch::runtime::kUnsetChainId ? current_chain_id() : chain_id;
    entry.debug_handle =
        debug_handle == executorch::runtime::kUnsetDebugHandle ? current_debug_handle() : debug_handle;
    entry.delegate_event_id_type = DelegateDebugIdType::kNone;
    entry.start_time = now();
    return entry;
  }

  void end_profiling(EventTracerEntry entry) override {
    uint64_t elapsed = static_cast<uint64_t>(now() - entry.start_time);
    if (entry.event_id == kExecuteEvent) return execute_.add(elapsed);
    if (entry.event_id >= kEventKinds || entry.chain_id == executorch::runtime::kUnsetChainId) return;
    InstructionTiming* slot = find(entry.chain_id, entry.debug_handle, static_cast<int>(entry.event_id));
    if (slot == nullptr) ++dropped_;
    else slot->timing.add(elapsed);
  }

  // The slots (those of instructions that ran have a kind >= 0), and the "Method::execute" events.
  const std::vector<InstructionTiming>& slots() const { return slots_; }
  const Timing& execute() const { return execute_; }
  // Whether the runtime called this tracer for any instruction.
  bool traced() const { return traced_; }
  // Events that found no room in the table (0 unless the method has more
  // instructions than it said).
  uint64_t dropped() const { return dropped_; }

  // Forgets the times recorded so far (keeping the instructions' slots: nothing is allocated).
  void clear() {
    for (auto& slot : slots_) slot.timing = Timing();
    execute_ = Timing();
  }

 private:
  static et_timestamp_t now() {
    return static_cast<et_timestamp_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

  // The slot of (chain, index), claimed for `kind` the first time; null if the table is full.
  InstructionTiming* find(ChainID chain, DebugHandle index, int kind) {
    size_t size = slots_.size();
    size_t at = (static_cast<size_t>(static_cast<uint32_t>(chain)) * 40503u + index) % size;
    for (size_t probe = 0; probe < size; ++probe, at = (at + 1) % size) {
      InstructionTiming& slot = slots_[at];
      if (slot.kind < 0) {
        slot.chain = chain, slot.index = index, slot.kind = kind;
        traced_ = true;
        return &slot;
      }
      if (slot.chain == chain && slot.index == index) return &slot;
    }
    return nullptr;
  }

  std::vector<InstructionTiming> slots_;
  Timing execute_;
  uint64_t dropped_ = 0;
  bool traced_ = false;
};

// A Timing as the file's {"calls", "ns", "min_ns"}.
inline std::string timing_json(const Timing& t) {
  return "{\"calls\": " + std::to_string(t.calls) + ", \"ns\": " + std::to_string(t.ns) +
         ", \"min_ns\": " + std::to_string(t.calls ? t.min_ns : 0) + "}";
}

// `text` as the inside of a JSON string.
inline std::string json_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Writes the profile of `method` to `file` (see the top of this file), with
// the runner's own times of the runs; false if writing failed.
inline bool write_profile(std::FILE* file, const Profile& profile, const std::string& method, const Timing& runs) {
  std::vector<const InstructionTiming*> used;
  for (const auto& slot : profile.slots()) {
    if (slot.kind >= 0 && slot.timing.calls > 0) used.push_back(&slot);
  }
  std::sort(used.begin(), used.end(), [](const InstructionTiming* a, const InstructionTiming* b) {
    return a->chain != b->chain ? a->chain < b->chain : a->index < b->index;
  });
  bool ok = std::fprintf(file, "{\"format\": \"etsb-profile-1\", \"method\": \"%s\", \"runs\": %llu, "
                               "\"traced\": %s,\n \"run\": %s,\n \"execute\": %s,\n \"instructions\": [",
                         json_text(method).c_str(), static_cast<unsigned long long>(runs.calls),
                         profile.traced() ? "true" : "false", timing_json(runs).c_str(),
                         timing_json(profile.execute()).c_str()) > 0;
  for (size_t i = 0; ok && i < used.size(); ++i) {
    const InstructionTiming& t = *used[i];
    std::string text = "{\"chain\": " + std::to_string(t.chain) + ", \"index\": " + std::to_string(t.index) +
                       ", \"kind\": \"" + kKinds[t.kind] + "\", " + timing_json(t.timing).substr(1);
    ok = std::fprintf(file, "%s\n  %s", i ? "," : "", text.c_str()) > 0;
  }
  return ok && std::fprintf(file, "]}\n") > 0;
}

// --profile's file: opened before the method loads (an unwritable path is
// refused before any work is done) and removed unless the profile is written.
class ProfileFile {
 public:
  ~ProfileFile() {
    if (file_ == nullptr) return;
    std::fclose(file_);
    if (!kept_) std::remove(path_.c_str());
  }
  // Opens `path` for writing; false, and `why`, if it cannot.
  bool open(const std::string& path, std::string& why) {
    path_ = path;
    file_ = std::fopen(path.c_str(), "w");
    if (file_ == nullptr) why = "--profile " + path + ": cannot write it: " + std::strerror(errno);
    return file_ != nullptr;
  }
  // Writes the profile, with the runner's times of the runs (ms), and
  // closes the file; false, and `why`, if that failed.
  bool write(const Profile& profile, const std::string& method, const std::vector<double>& times_ms,
             std::string& why) {
    Timing runs;
    for (double ms : times_ms) runs.add(static_cast<uint64_t>(ms * 1e6));
    bool ok = write_profile(file_, profile, method, runs);
    ok = std::fclose(file_) == 0 && ok;
    file_ = nullptr;
    if (!ok) why = "--profile " + path_ + ": writing it failed";
    if (profile.dropped() > 0) ok = false, why = "--profile: the method ran more instructions than it declares";
    if (!ok) std::remove(path_.c_str());
    return kept_ = ok;
  }

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  bool kept_ = false;
};

}  // namespace etsb_runner
