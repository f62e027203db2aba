! ArgumentTypeError: its comment, then its instance and class methods.

doit
ArgumentTypeError comment: 'Signalled (error 2094) when an argument is not of a class the method can use.'.
true
%

category: 'Error Numbers'
classmethod: ArgumentTypeError
_defaultNumber
	^ 2094
%
