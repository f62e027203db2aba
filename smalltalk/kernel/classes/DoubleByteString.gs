! DoubleByteString: its comment, then its instance and class methods.

doit
DoubleByteString comment: 'A string whose characters all lie below U+10000, two bytes each. A String
grows into one when it is given a character above U+00FF.'.
true
%
