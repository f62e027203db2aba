! Float: its comment, then its instance and class methods.

doit
Float comment: 'A double-precision floating-point number that does not fit a SmallDouble (NaN,
the infinities, very large or very small magnitudes).'.
true
%
