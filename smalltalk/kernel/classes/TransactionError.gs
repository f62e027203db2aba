! TransactionError: its comment, then its instance and class methods.

doit
TransactionError comment: 'Signalled (error 2409) when a transaction operation cannot be done: a commit
refused for a conflict or a read-only login, an object that may not be stored.'.
true
%

category: 'Error Numbers'
classmethod: TransactionError
_defaultNumber
	^ 2409
%
