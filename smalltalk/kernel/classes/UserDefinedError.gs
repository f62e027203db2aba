! UserDefinedError: its comment, then its instance and class methods.

doit
UserDefinedError comment: 'The error Object>>error: signals (error 2318): its description names its
reason, #halt, before the text, as GemStone 3.7 reports it: a UserDefinedError occurred (error
2318), reason:halt, <text>. Its messageText is the text alone.'.
true
%

category: 'Accessing'
method: UserDefinedError
reason
	"Why it was signalled: #halt, the reason GemStone gives the errors Object>>error: signals."
	^ #halt
%

category: 'Accessing'
method: UserDefinedError
description
	"a UserDefinedError occurred (error 2318), reason:halt, <messageText>"
	^ self _articleName , ' occurred (error ' , self number printString , '), reason:'
		, self reason , ', ' , (messageText == nil ifTrue: [''] ifFalse: [messageText asString])
%
