! LargePositiveInteger: its comment, then its instance and class methods.

doit
LargePositiveInteger comment: 'A positive integer too large for a SmallInteger.'.
true
%
