"""The one place where the public functions' arguments become C values.

Every argument that reaches the library goes through one of these, so each
kind of argument is converted one way whatever its Python type, and a value
the C parameter cannot hold is refused before any call:

- real(): alpha and beta. Accepted: int, float, fractions.Fraction,
  decimal.Decimal, numpy integer and floating scalars (any numbers.Real, and
  Decimal). Refused with TypeError: bool (Python's or numpy's), complex,
  str, bytes, arrays (0-d included), anything else. The value is rounded to
  float64 and then to float32 (as C's (float)(double) does); a finite value
  that would round to infinity, or a nonzero one that would round to 0, is
  refused with ValueError, whatever its type (10**400, Fraction(10**400),
  Decimal('1e400') and 1e39 alike). Infinity and NaN (of any type,
  Decimal's signalling NaN included) are float32 values and pass as such.
- integer(): sizes, leading dimensions, variant ids, device ordinals,
  streams, tile fields. Accepted: int and anything with __index__ (numpy
  integers); refused with TypeError: bool (Python's or numpy's), float (even
  2.0), Fraction, Decimal, str. A value outside the C parameter's range (or a
  narrower range the caller names) is refused with ValueError.
- text() and path(): strings that reach C as char *. A NUL (which C would
  read as the end of the string) is refused with ValueError.
- flag() and transpose(): True/False (Python's or numpy's); transpose also
  takes 'N'/'T' (either case). Another type is a TypeError, another string a
  ValueError.

TypeError means the argument's type is not one the parameter takes;
ValueError means the type is right and the value is not.
"""
import decimal
import math
import numbers
import operator
import os
import struct
from typing import Any, Optional, Tuple

Bounds = Tuple[int, int]
INT32: Bounds = (-2**31, 2**31 - 1)
INT64: Bounds = (-2**63, 2**63 - 1)
POINTER: Bounds = (0, 2**64 - 1)  # uintptr_t: addresses and cudaStream_t handles

def type_name(obj: object) -> str:
    t = type(obj)
    return t.__name__ if t.__module__ == 'builtins' else '%s.%s' % (t.__module__, t.__name__)


def is_bool(value: object) -> bool:
    """Python's or numpy's bool (numpy 2 renamed numpy.bool_ to numpy.bool)."""
    t = type(value)
    return isinstance(value, bool) or (t.__module__ == 'numpy' and t.__name__ in ('bool', 'bool_'))


def describe(value: object) -> str:
    """A short text for a value in a message: its repr, unless that is long
    (or, for an int past Python's digit limit, impossible)."""
    if isinstance(value, numbers.Integral) and not is_bool(value):
        number = operator.index(value)
        bits = abs(number).bit_length()
        if bits > 100:
            digits = int((bits - 1) * math.log10(2)) + 1  # within one of the count
            if abs(number) >= 10 ** digits:
                digits += 1
            return '<a %d-digit %s>' % (digits, type_name(value))
    try:
        text = repr(value)
    except ValueError:  # a Fraction of ints past the digit limit
        return '<a %s>' % type_name(value)
    return text if len(text) <= 60 else text[:45] + '...' + text[-12:]


def real(value: Any, name: str) -> float:
    """alpha, beta: a real number as a float that float32 holds (see above)."""
    if is_bool(value):
        raise TypeError('%s must be a real number, not a bool (%r)' % (name, value))
    if not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise TypeError('%s must be a real number (int, float, Fraction, Decimal or a numpy scalar), '
                        'got %s' % (name, type_name(value)))
    if isinstance(value, decimal.Decimal) and value.is_nan():
        return math.nan  # float() refuses the signalling NaN; comparing it raises
    try:
        number = float(value)
    except OverflowError:  # an int or a Fraction past float64: too large either way
        number = math.inf if operator.gt(value, 0) else -math.inf
    if math.isnan(number):
        return number
    if math.isinf(number) and value == number:  # infinity itself
        return number
    try:
        single = struct.unpack('=f', struct.pack('=f', number))[0]
    except OverflowError:  # finite, but float32 rounds it to infinity
        single = math.inf
    if math.isinf(single):
        raise ValueError('%s = %s does not fit a float32 (largest: 3.4028235e+38)' % (name, describe(value)))
    if single == 0.0 and value != 0:
        raise ValueError('%s = %s is too small for a float32: it would be 0' % (name, describe(value)))
    return number


def integer(value: Any, name: str, bounds: Bounds = INT64, outside: Optional[str] = None) -> int:
    """An int from an int or a numpy integer, within bounds (low, high).
    outside: the ValueError's message for a value out of bounds, with %s for
    the value (default: says the range)."""
    if is_bool(value):
        raise TypeError('%s must be an integer, not a bool (%r)' % (name, value))
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError('%s must be an integer, got %s' % (name, type_name(value))) from None
    low, high = bounds
    if not low <= number <= high:
        if outside is not None:
            raise ValueError(outside % describe(number))
        raise ValueError('%s = %s is outside %s .. %s' % (name, describe(number), low, high))
    return number


def text(value: Any, name: str) -> bytes:
    """A str for a char * parameter, as UTF-8 bytes; no NUL."""
    if not isinstance(value, str):
        raise TypeError('%s must be a str, got %s' % (name, type_name(value)))
    if '\0' in value:
        raise ValueError('%s %s contains a NUL character, where C would end the string'
                         % (name, describe(value)))
    try:
        return value.encode('utf-8')
    except UnicodeEncodeError as e:
        raise ValueError('%s %s cannot be encoded as UTF-8: %s' % (name, describe(value), e.reason)) from None


def path(value: Any, name: str = 'path') -> bytes:
    """A file name for a char * parameter (str, bytes or os.PathLike, as
    os.fsencode takes it); no NUL."""
    try:
        encoded = os.fsencode(value)
    except TypeError:
        raise TypeError('%s must be a str, bytes or os.PathLike, got %s' % (name, type_name(value))) from None
    if b'\0' in encoded:
        raise ValueError('%s %s contains a NUL character, where C would end the file name'
                         % (name, describe(value)))
    return encoded


def flag(value: Any, name: str) -> bool:
    """True or False (Python's or numpy's)."""
    if is_bool(value):
        return bool(value)
    raise TypeError('%s must be True or False, got %s' % (name, describe(value)))


def transpose(value: Any, name: str) -> bool:
    """True/False (Python's or numpy's), or the BLAS letters 'N'/'T' (either case)."""
    if is_bool(value):
        return bool(value)
    if isinstance(value, str):
        if value.upper() in ('N', 'T'):
            return value.upper() == 'T'
        raise ValueError("%s must be True, False, 'N' or 'T', got %s" % (name, describe(value)))
    raise TypeError("%s must be True, False, 'N' or 'T', got %s" % (name, describe(value)))
