! CompileError: its comment, then its instance and class methods.

doit
CompileError comment: 'Signalled (error 1001) when source does not compile; errorDetails answers, per
error, its number, its offset in the source and its text.'.
true
%

category: 'Accessing'
method: CompileError
errorDetails
	"An Array of {number. offset. text. nil. symbol} tuples, one per error."
	^ (gsArgs ~~ nil and: [gsArgs size > 0]) ifTrue: [gsArgs at: 1] ifFalse: [#()]
%

category: 'Error Numbers'
classmethod: CompileError
_defaultNumber
	^ 1001
%
