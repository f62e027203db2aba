! ExecBlock: its comment, then its instance and class methods.

doit
ExecBlock comment: 'A block closure: evaluation with arguments (value, value:,
valueWithArguments:), the loops (whileTrue:, repeat), exception handling
(on:do:, ensure:, ifCurtailed:) and numArgs.'.
true
%

category: 'Evaluating'
method: ExecBlock
value
	<primitive: 250>
	^ self _wrongArgCount: 0
%

category: 'Evaluating'
method: ExecBlock
value: firstArg
	<primitive: 250>
	^ self _wrongArgCount: 1
%

category: 'Evaluating'
method: ExecBlock
value: firstArg value: secondArg
	<primitive: 250>
	^ self _wrongArgCount: 2
%

category: 'Evaluating'
method: ExecBlock
value: firstArg value: secondArg value: thirdArg
	<primitive: 250>
	^ self _wrongArgCount: 3
%

category: 'Evaluating'
method: ExecBlock
value: firstArg value: secondArg value: thirdArg value: fourthArg
	<primitive: 250>
	^ self _wrongArgCount: 4
%

category: 'Evaluating'
method: ExecBlock
valueWithArguments: anArray
	<primitive: 251>
	^ self _wrongArgCount: anArray size
%

category: 'Evaluating'
method: ExecBlock
numArgs
	<primitive: 252>
	^ 0
%

category: 'Private'
method: ExecBlock
_wrongArgCount: n
	^ ArgumentError new signal: 'wrong number of arguments: the block takes ', self numArgs printString, ', not ', n printString
%

category: 'Exceptions'
method: ExecBlock
on: exceptionSelector do: handlerBlock
	<primitive: 253>
	^ nil
%

category: 'Exceptions'
method: ExecBlock
ensure: aBlock
	<primitive: 254>
	^ nil
%

category: 'Exceptions'
method: ExecBlock
ifCurtailed: aBlock
	<primitive: 255>
	^ nil
%

category: 'Controlling'
method: ExecBlock
whileTrue
	<primitive: 256>
	^ nil
%

category: 'Controlling'
method: ExecBlock
whileFalse
	<primitive: 257>
	^ nil
%

category: 'Controlling'
method: ExecBlock
whileTrue: aBlock
	<primitive: 258>
	^ nil
%

category: 'Controlling'
method: ExecBlock
whileFalse: aBlock
	<primitive: 259>
	^ nil
%

category: 'Controlling'
method: ExecBlock
repeat
	<primitive: 260>
	^ nil
%

category: 'Evaluating'
method: ExecBlock
cull: anArg
	^ self numArgs = 0 ifTrue: [self value] ifFalse: [self value: anArg]
%
