"""ExecuTorch's ScalarType enum: names as kernel yaml spells them, and numbers as
kernel keys and ``.pte`` files carry them."""

from __future__ import annotations

# runtime/core/portable_type/scalar_type.h, in enum order.
SCALAR_TYPES: dict[str, int] = {
    "Byte": 0, "Char": 1, "Short": 2, "Int": 3, "Long": 4, "Half": 5, "Float": 6,
    "Double": 7, "ComplexHalf": 8, "ComplexFloat": 9, "ComplexDouble": 10, "Bool": 11,
    "QInt8": 12, "QUInt8": 13, "QInt32": 14, "BFloat16": 15, "QUInt4x2": 16,
    "QUInt2x4": 17, "Bits1x8": 18, "Bits2x4": 19, "Bits4x2": 20, "Bits8": 21,
    "Bits16": 22, "Float8_e5m2": 23, "Float8_e4m3fn": 24, "Float8_e5m2fnuz": 25,
    "Float8_e4m3fnuz": 26, "UInt16": 27, "UInt32": 28, "UInt64": 29,
}
SCALAR_TYPE_NAMES: dict[int, str] = {number: name for name, number in SCALAR_TYPES.items()}
