! CannotReturn: its comment, then its instance and class methods.

doit
CannotReturn comment: 'Signalled (error 2011) when a block''s non-local return (^) finds that the
method it would return from has already returned.'.
true
%

category: 'Error Numbers'
classmethod: CannotReturn
_defaultNumber
	^ 2011
%
