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

# The bytes of one element of each dtype that has whole-byte elements.
SCALAR_TYPE_BYTES: dict[int, int] = {SCALAR_TYPES[name]: size for name, size in (
    ("Byte", 1), ("Char", 1), ("Short", 2), ("Int", 4), ("Long", 8), ("Half", 2), ("Float", 4), ("Double", 8),
    ("ComplexHalf", 4), ("ComplexFloat", 8), ("ComplexDouble", 16), ("Bool", 1), ("QInt8", 1), ("QUInt8", 1),
    ("QInt32", 4), ("BFloat16", 2), ("QUInt4x2", 1), ("QUInt2x4", 1), ("Bits1x8", 1), ("Bits2x4", 1),
    ("Bits4x2", 1), ("Bits8", 1), ("Bits16", 2), ("Float8_e5m2", 1), ("Float8_e4m3fn", 1),
    ("Float8_e5m2fnuz", 1), ("Float8_e4m3fnuz", 1), ("UInt16", 2), ("UInt32", 4), ("UInt64", 8))}

# What every ``.npy`` file starts with.
NPY_MAGIC = b"\x93NUMPY"

# numpy's dtype strings (little-endian or byte-sized) of the dtypes a ``.npy``
# file holds, as ScalarType names: how etsb reads inputs and writes outputs.
NPY_DESCRS: dict[str, str] = {
    "<f4": "Float", "<f8": "Double", "<f2": "Half", "<i8": "Long", "<i4": "Int", "<i2": "Short", "|i1": "Char",
    "|u1": "Byte", "|b1": "Bool", "<u2": "UInt16", "<u4": "UInt32", "<u8": "UInt64", "<c8": "ComplexFloat",
    "<c16": "ComplexDouble"}
