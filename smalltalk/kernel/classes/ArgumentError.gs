! ArgumentError: its comment, then its instance and class methods.

doit
ArgumentError comment: 'Signalled (error 2718) when an argument is of the right kind but not
acceptable (a bad name, an inconsistent option).'.
true
%

category: 'Error Numbers'
classmethod: ArgumentError
_defaultNumber
	^ 2718
%
