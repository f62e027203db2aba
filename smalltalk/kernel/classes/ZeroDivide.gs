! ZeroDivide: its comment, then its instance and class methods.

doit
ZeroDivide comment: 'Signalled (error 2026) when a number is divided by zero; the dividend travels
with it.'.
true
%

category: 'Error Numbers'
classmethod: ZeroDivide
_defaultNumber
	^ 2026
%
