! LookupError: its comment, then its instance and class methods.

doit
LookupError comment: 'Signalled (error 2023) when a key is not found (at: on a dictionary,
removeKey:).'.
true
%

category: 'Error Numbers'
classmethod: LookupError
_defaultNumber
	^ 2023
%
