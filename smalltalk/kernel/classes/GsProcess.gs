! GsProcess: its comment, then its instance and class methods.

doit
GsProcess comment: 'The session''s process: the stack report of the running activations
(stackReportToLevel:).'.
true
%

category: 'Debugging Support'
classmethod: GsProcess
stackReportToLevel: aLevel
	"The running activations, innermost first, at most aLevel lines of
	 'Receiver (Implementor) >> selector @step line n'."
	<primitive: 287>
	^ ArgumentError new signal: 'stackReportToLevel: needs a non-negative SmallInteger'
%
