! SmallInteger: its comment, then its instance and class methods.

doit
SmallInteger comment: 'An integer that fits an immediate object (-2^60 .. 2^60-1); arithmetic that
overflows answers a LargeInteger.'.
true
%
