! QuadByteSymbol: its comment, then its instance and class methods.

doit
QuadByteSymbol comment: 'A symbol whose characters need four bytes each.'.
true
%

category: 'Comparing'
method: QuadByteSymbol
= anObject
	^ self == anObject
%
