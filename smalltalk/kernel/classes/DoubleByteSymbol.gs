! DoubleByteSymbol: its comment, then its instance and class methods.

doit
DoubleByteSymbol comment: 'A symbol whose characters need two bytes each.'.
true
%

category: 'Comparing'
method: DoubleByteSymbol
= anObject
	^ self == anObject
%
