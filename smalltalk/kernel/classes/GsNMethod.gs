! GsNMethod: its comment, then its instance and class methods.

doit
GsNMethod comment: 'A compiled method: its selector, source, category, class, literals and the
selectors it sends.'.
true
%

category: 'Accessing'
method: GsNMethod
selector
	<primitive: 90>
	^ self _primitiveFailed: #selector
%

category: 'Accessing'
method: GsNMethod
sourceString
	<primitive: 91>
	^ self _primitiveFailed: #sourceString
%

category: 'Accessing'
method: GsNMethod
inClass
	<primitive: 92>
	^ self _primitiveFailed: #inClass
%

category: 'Accessing'
method: GsNMethod
category
	<primitive: 93>
	^ self _primitiveFailed: #category
%

category: 'Accessing'
method: GsNMethod
literals
	<primitive: 94>
	^ self _primitiveFailed: #literals
%

category: 'Accessing'
method: GsNMethod
environmentId
	<primitive: 95>
	^ self _primitiveFailed: #environmentId
%

category: 'Accessing'
method: GsNMethod
instVarsAccessed
	<primitive: 96>
	^ self _primitiveFailed: #instVarsAccessed
%

category: 'Accessing'
method: GsNMethod
_selectorsSent
	<primitive: 97>
	^ self _primitiveFailed: #_selectorsSent
%

category: 'Accessing'
method: GsNMethod
numArgs
	<primitive: 98>
	^ self _primitiveFailed: #numArgs
%

category: 'Testing'
method: GsNMethod
sendsSelector: aSelector
	^ (self _selectorsSent indexOf: aSelector asSymbol) > 0
%

category: 'Printing'
method: GsNMethod
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: GsNMethod
printOn: aStream
	"Foo >> bar (no source for GemStone's form)."
	aStream print: self inClass; nextPutAll: ' >> '; nextPutAll: self selector
%

category: 'Accessing'
method: GsNMethod
isMeta
	^ self inClass isMeta
%

category: 'Accessing'
method: GsNMethod
_refersTo: anObject
	"Whether a literal of the receiver is anObject, or a global binding (Association) whose value is anObject."
	| literals |
	literals := self literals.
	1 to: literals size do: [:i | | each |
		each := literals at: i.
		each == anObject ifTrue: [^ true].
		((each isKindOf: Association) and: [each value == anObject]) ifTrue: [^ true]].
	^ false
%

category: 'Accessing'
method: GsNMethod
_hasLiteral: anObject
	"Whether anObject itself (identity) is among the receiver's literals. The primitive
	 indexOf: (equality) rules most methods out before the identity loop runs."
	| literals |
	literals := self literals.
	(literals indexOf: anObject) = 0 ifTrue: [^ false].
	1 to: literals size do: [:i | (literals at: i) == anObject ifTrue: [^ true]].
	^ false
%

category: 'Accessing'
method: GsNMethod
_refersToLiteral: aLiteral
	self literals do: [:each |
		(each == aLiteral or: [(each isKindOf: Association) not and: [each = aLiteral and: [each class == aLiteral class]]])
			ifTrue: [^ true]].
	^ false
%
