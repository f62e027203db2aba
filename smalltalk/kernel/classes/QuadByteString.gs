! QuadByteString: its comment, then its instance and class methods.

doit
QuadByteString comment: 'A string whose characters take four bytes each: any Unicode code point.'.
true
%
