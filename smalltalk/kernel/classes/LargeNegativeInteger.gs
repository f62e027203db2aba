! LargeNegativeInteger: its comment, then its instance and class methods.

doit
LargeNegativeInteger comment: 'A negative integer too large in magnitude for a SmallInteger.'.
true
%
