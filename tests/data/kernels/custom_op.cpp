// Test kernel of etsb_test::encode_args.out (tests/data/kernels/custom_op.yaml):
// writes into `out` (float64) an encoding of every value the runtime handed
// it, slot for slot the encoding that tests/models/custom_op/export_custom_op.py
// computes in torch. The labels of the slots are in
// tests/models/custom_op/custom_op.json. Errors go through the context.
#include <cstdint>
#include <optional>
#include <string_view>

#include <executorch/runtime/kernel/kernel_includes.h>

namespace etsb_test {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Device;
using ::executorch::aten::Layout;
using ::executorch::aten::MemoryFormat;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::torch::executor::KernelRuntimeContext;

namespace {

// Appends slots to a float64 buffer; remembers an overflow instead of writing past it.
class Slots {
 public:
  Slots(double* data, ssize_t capacity) : data_(data), capacity_(capacity) {}

  void put(double value) {
    if (count_ < capacity_) data_[count_] = value;
    ++count_;
  }
  ssize_t count() const { return count_; }

  // Zeros standing for the values of an absent optional.
  void absent(int width) {
    put(0);
    for (int k = 0; k < width; ++k) put(0);
  }

 private:
  double* data_;
  ssize_t capacity_;
  ssize_t count_ = 0;
};

double sum_of(const Tensor& t) {
  double total = 0;
  switch (t.scalar_type()) {
    case ScalarType::Float:
      for (ssize_t i = 0; i < t.numel(); ++i) total += t.const_data_ptr<float>()[i];
      break;
    case ScalarType::Double:
      for (ssize_t i = 0; i < t.numel(); ++i) total += t.const_data_ptr<double>()[i];
      break;
    case ScalarType::Long:
      for (ssize_t i = 0; i < t.numel(); ++i) total += static_cast<double>(t.const_data_ptr<int64_t>()[i]);
      break;
    default:
      total = -1e300;  // not a dtype this model passes: fails the comparison
  }
  return total;
}

double number(ScalarType type) { return static_cast<double>(static_cast<int>(type)); }

// A Scalar's kind (0 integral, 1 floating point, 2 boolean) and value.
void put_scalar(Slots& s, const Scalar& value) {
  if (value.isBoolean()) {
    s.put(2), s.put(value.to<bool>() ? 1 : 0);
  } else if (value.isFloatingPoint()) {
    s.put(1), s.put(value.to<double>());
  } else {
    s.put(0), s.put(static_cast<double>(value.to<int64_t>()));
  }
}

template <typename T>
void put_list_len_first(Slots& s, const std::optional<ArrayRef<T>>& list) {
  if (!list.has_value()) return s.absent(2);
  s.put(1), s.put(static_cast<double>(list->size())), s.put(list->empty() ? 0 : static_cast<double>((*list)[0]));
}

template <typename T>
void put_optional_value(Slots& s, const std::optional<T>& value) {
  if (!value.has_value()) return s.absent(1);
  s.put(1), s.put(static_cast<double>(*value));
}

// An enum's number, or nothing.
template <typename E>
std::optional<int> as_number(const std::optional<E>& value) {
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

double byte(std::string_view text, size_t i) { return static_cast<double>(static_cast<unsigned char>(text[i])); }

}  // namespace

Tensor& encode_args_out(
    KernelRuntimeContext& ctx, const Tensor& t, const std::optional<Tensor>& t_opt,
    const std::optional<Tensor>& t_opt_none, ArrayRef<Tensor> t_list, ArrayRef<std::optional<Tensor>> t_opt_list,
    std::optional<ArrayRef<Tensor>> t_list_opt, std::optional<ArrayRef<Tensor>> t_list_opt_none, int64_t i,
    int64_t si, ArrayRef<int64_t> i_list, ArrayRef<int64_t> si_list, std::optional<ArrayRef<int64_t>> i_list_opt,
    std::optional<ArrayRef<int64_t>> i_list_opt_none, std::optional<int64_t> i_opt, std::optional<int64_t> i_opt_none,
    double f, ArrayRef<double> f_list, std::optional<ArrayRef<double>> f_list_opt,
    std::optional<ArrayRef<double>> f_list_opt_none, std::optional<double> f_opt, std::optional<double> f_opt_none,
    bool b, ArrayRef<bool> b_list, std::optional<ArrayRef<bool>> b_list_opt,
    std::optional<ArrayRef<bool>> b_list_opt_none, std::optional<bool> b_opt, std::optional<bool> b_opt_none,
    const Scalar& s_int, const Scalar& s_float, const Scalar& s_bool, const std::optional<Scalar>& s_opt,
    const std::optional<Scalar>& s_opt_none, ScalarType st, std::optional<ScalarType> st_opt,
    std::optional<ScalarType> st_opt_none, MemoryFormat mf, std::optional<MemoryFormat> mf_opt,
    std::optional<MemoryFormat> mf_opt_none, Layout layout, std::optional<Layout> layout_opt,
    std::optional<Layout> layout_opt_none, std::optional<Device> device_opt_none, std::string_view text,
    std::optional<std::string_view> text_opt, std::optional<std::string_view> text_opt_none, int64_t dflt,
    Tensor& out) {
  ET_KERNEL_CHECK(ctx, out.scalar_type() == ScalarType::Double && out.dim() == 1, InvalidArgument, out);
  // The encoding reads the first and last elements of these.
  ET_KERNEL_CHECK(ctx, !i_list.empty() && !si_list.empty() && !f_list.empty() && !b_list.empty() && !text.empty(),
                  InvalidArgument, out);
  Slots s(out.mutable_data_ptr<double>(), out.numel());

  // Tensor, Tensor?
  s.put(static_cast<double>(t.numel())), s.put(number(t.scalar_type())), s.put(sum_of(t));
  for (const auto* optional : {&t_opt, &t_opt_none}) {
    if (!optional->has_value()) {
      s.absent(2);
      continue;
    }
    s.put(1), s.put(static_cast<double>((*optional)->numel())), s.put(sum_of(**optional));
  }
  // Tensor[]
  {
    double numel = 0, total = 0;
    for (const Tensor& item : t_list) numel += static_cast<double>(item.numel()), total += sum_of(item);
    s.put(static_cast<double>(t_list.size())), s.put(numel), s.put(total);
    s.put(t_list.empty() ? -1 : number(t_list[0].scalar_type()));
  }
  // Tensor?[]
  {
    double present = 0, first_none = -1, total = 0;
    for (size_t k = 0; k < t_opt_list.size(); ++k) {
      if (t_opt_list[k].has_value()) {
        present += 1, total += sum_of(*t_opt_list[k]);
      } else if (first_none < 0) {
        first_none = static_cast<double>(k);
      }
    }
    s.put(static_cast<double>(t_opt_list.size())), s.put(present), s.put(first_none), s.put(total);
  }
  // Tensor[]?
  for (const auto* optional : {&t_list_opt, &t_list_opt_none}) {
    if (!optional->has_value()) {
      s.absent(2);
      continue;
    }
    double total = 0;
    for (const Tensor& item : **optional) total += sum_of(item);
    s.put(1), s.put(static_cast<double>((*optional)->size())), s.put(total);
  }
  // int, SymInt, int[], SymInt[], int[]?, int?
  s.put(static_cast<double>(i)), s.put(static_cast<double>(si));
  {
    double total = 0;
    for (int64_t v : i_list) total += static_cast<double>(v);
    s.put(static_cast<double>(i_list.size())), s.put(static_cast<double>(i_list[0]));
    s.put(static_cast<double>(i_list[i_list.size() - 1])), s.put(total);
  }
  s.put(static_cast<double>(si_list.size())), s.put(static_cast<double>(si_list[0]));
  s.put(static_cast<double>(si_list[si_list.size() - 1]));
  put_list_len_first(s, i_list_opt), put_list_len_first(s, i_list_opt_none);
  put_optional_value(s, i_opt), put_optional_value(s, i_opt_none);
  // float, float[], float[]?, float?
  s.put(f);
  s.put(static_cast<double>(f_list.size())), s.put(f_list[0]), s.put(f_list[f_list.size() - 1]);
  put_list_len_first(s, f_list_opt), put_list_len_first(s, f_list_opt_none);
  put_optional_value(s, f_opt), put_optional_value(s, f_opt_none);
  // bool, bool[], bool[]?, bool?
  s.put(b ? 1 : 0);
  {
    double true_count = 0;
    for (bool v : b_list) true_count += v ? 1 : 0;
    s.put(static_cast<double>(b_list.size())), s.put(true_count), s.put(b_list[0] ? 1 : 0);
  }
  put_list_len_first(s, b_list_opt), put_list_len_first(s, b_list_opt_none);
  put_optional_value(s, b_opt), put_optional_value(s, b_opt_none);
  // Scalar, Scalar?
  put_scalar(s, s_int), put_scalar(s, s_float), put_scalar(s, s_bool);
  for (const auto* optional : {&s_opt, &s_opt_none}) {
    if (!optional->has_value()) {
      s.absent(2);
      continue;
    }
    s.put(1), put_scalar(s, **optional);
  }
  // ScalarType, MemoryFormat, Layout (and optionals), Device?
  s.put(number(st));
  for (const auto* optional : {&st_opt, &st_opt_none}) {
    if (!optional->has_value()) {
      s.absent(1);
      continue;
    }
    s.put(1), s.put(number(**optional));
  }
  s.put(static_cast<double>(static_cast<int>(mf)));
  put_optional_value(s, as_number(mf_opt)), put_optional_value(s, as_number(mf_opt_none));
  s.put(static_cast<double>(static_cast<int>(layout)));
  put_optional_value(s, as_number(layout_opt)), put_optional_value(s, as_number(layout_opt_none));
  put_optional_value(s, device_opt_none ? as_number(std::optional(device_opt_none->type())) : std::nullopt);
  // str, str? (bytes of UTF-8)
  s.put(static_cast<double>(text.size())), s.put(byte(text, 0)), s.put(byte(text, text.size() - 1));
  for (const auto* optional : {&text_opt, &text_opt_none}) {
    if (!optional->has_value()) {
      s.absent(2);
      continue;
    }
    s.put(1), s.put(static_cast<double>((*optional)->size())), s.put((*optional)->empty() ? 0 : byte(**optional, 0));
  }
  // An argument the model left to its schema default.
  s.put(static_cast<double>(dflt));

  ET_KERNEL_CHECK_MSG(ctx, s.count() == out.numel(), InvalidArgument, out, "encoded %zd slots into %zd",
                      static_cast<ssize_t>(s.count()), static_cast<ssize_t>(out.numel()));
  return out;
}

}  // namespace native
}  // namespace etsb_test
