! ImproperOperation: its comment, then its instance and class methods.

doit
ImproperOperation comment: 'Signalled (error 2717) when an operation does not apply to its receiver; the
superclass of the argument, range and lookup errors.'.
true
%

category: 'Error Numbers'
classmethod: ImproperOperation
_defaultNumber
	^ 2717
%
