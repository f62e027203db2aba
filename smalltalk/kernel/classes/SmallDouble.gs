! SmallDouble: its comment, then its instance and class methods.

doit
SmallDouble comment: 'A floating-point number whose exponent fits an immediate object: most doubles,
with no object allocated.'.
true
%
