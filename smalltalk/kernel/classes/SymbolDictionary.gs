! SymbolDictionary: its comment, then its instance and class methods.

doit
SymbolDictionary comment: 'A dictionary whose keys are symbols, holding SymbolAssociations: Globals,
UserGlobals and every dictionary of a symbol list.'.
true
%

category: 'Accessing'
method: SymbolDictionary
at: aKey
	<primitive: 320>
	^ LookupError new signal: 'key not found: ', aKey printString
%

category: 'Accessing'
method: SymbolDictionary
associationAt: aKey
	<primitive: 322>
	^ nil
%

category: 'Accessing'
method: SymbolDictionary
removeKey: aKey
	<primitive: 323>
	^ LookupError new signal: 'key not found: ', aKey printString
%

category: 'Accessing'
method: SymbolDictionary
includesKey: aKey
	<primitive: 324>
	^ false
%

category: 'Accessing'
method: SymbolDictionary
size
	<primitive: 326>
	^ self _primitiveFailed: #size
%

category: 'Accessing'
method: SymbolDictionary
associations
	<primitive: 327>
	^ self _primitiveFailed: #associations
%

category: 'Accessing'
method: SymbolDictionary
values
	<primitive: 328>
	^ self _primitiveFailed: #values
%

category: 'Accessing'
method: SymbolDictionary
keyAtValue: aValue
	<primitive: 330>
	^ nil
%

category: 'Accessing'
method: SymbolDictionary
add: anAssociation
	<primitive: 331>
	^ self _primitiveFailed: #add:
%

category: 'Accessing'
method: SymbolDictionary
at: aKey otherwise: aValue
	| assoc |
	assoc := self associationAt: aKey.
	^ assoc isNil ifTrue: [aValue] ifFalse: [assoc value]
%

category: 'Accessing'
method: SymbolDictionary
at: aKey ifAbsentPut: aBlock
	| assoc |
	assoc := self associationAt: aKey.
	^ assoc isNil ifTrue: [self at: aKey put: aBlock value] ifFalse: [assoc value]
%

category: 'Testing'
method: SymbolDictionary
isEmpty
	^ self size = 0
%

category: 'Testing'
method: SymbolDictionary
notEmpty
	^ self size > 0
%

category: 'Enumerating'
method: SymbolDictionary
keysAndValuesDo: aBlock
	| assocs |
	assocs := self associations.
	1 to: assocs size do: [:i | | a | a := assocs at: i. aBlock value: a key value: a value]
%

category: 'Enumerating'
method: SymbolDictionary
keysDo: aBlock
	| ks |
	ks := self keys.
	1 to: ks size do: [:i | aBlock value: (ks at: i)]
%

category: 'Enumerating'
method: SymbolDictionary
valuesDo: aBlock
	| vs |
	vs := self values.
	1 to: vs size do: [:i | aBlock value: (vs at: i)]
%

category: 'Enumerating'
method: SymbolDictionary
do: aBlock
	^ self valuesDo: aBlock
%

category: 'Printing'
method: SymbolDictionary
printString
	^ self _printStringFromPrintOn
%

category: 'Private'
method: SymbolDictionary
_associationAtOrNil: aKey
	<primitive: 322>
	^ nil
%

category: 'Private'
method: SymbolDictionary
_associationsArray
	<primitive: 327>
	^ #()
%

category: 'Accessing'
method: SymbolDictionary
at: aKey ifAbsent: aBlock
	| assoc |
	assoc := self _associationAtOrNil: aKey.
	assoc == nil ifTrue: [^ aBlock value].
	^ assoc value
%

category: 'Accessing'
method: SymbolDictionary
associationAt: aKey ifAbsent: aBlock
	| assoc |
	assoc := self _associationAtOrNil: aKey.
	assoc == nil ifTrue: [^ aBlock value].
	^ assoc
%

category: 'Removing'
method: SymbolDictionary
removeKey: aKey ifAbsent: aBlock
	(self _associationAtOrNil: aKey) == nil ifTrue: [^ aBlock value].
	^ self _removeKeyPresent: aKey
%

category: 'Private'
method: SymbolDictionary
_removeKeyPresent: aKey
	<primitive: 323>
	^ self _errorKeyNotFound: aKey
%

category: 'Accessing'
method: SymbolDictionary
at: aKey put: aValue
	<primitive: 321>
	^ ArgumentTypeError new signal: 'at:put: failed on a SymbolDictionary'
%

category: 'Accessing'
method: SymbolDictionary
keys
	"A Set of the keys, like every dictionary."
	| result |
	result := Set new.
	self _associationsArray do: [:each | result add: each key].
	^ result
%

category: 'Enumerating'
method: SymbolDictionary
associationsDo: aBlock
	self _associationsArray do: aBlock
%

category: 'Accessing'
method: SymbolDictionary
name
	"The key under which the receiver holds itself, or nil."
	self associationsDo: [:each | each value == self ifTrue: [^ each key]].
	^ nil
%

category: 'Accessing'
method: SymbolDictionary
name: aSymbol
	self at: aSymbol asSymbol put: self
%

category: 'Printing'
method: SymbolDictionary
printOn: aStream
	"Values that are symbol dictionaries print as their names: dictionaries hold themselves."
	aStream nextPutAll: self describeClassName; nextPutAll: '( '.
	self associations
		do: [:each |
			aStream print: each key; nextPutAll: '->'.
			(each value isKindOf: SymbolDictionary)
				ifTrue: [aStream nextPutAll: (each value name ifNil: ['aSymbolDictionary'])]
				ifFalse: [aStream print: each value]]
		separatedBy: [aStream nextPutAll: ', '].
	aStream nextPut: $)
%

category: 'Instance Creation'
classmethod: SymbolDictionary
new
	<primitive: 329>
	^ self _cannotInstantiate
%

category: 'Instance Creation'
classmethod: SymbolDictionary
new: anInteger
	^ self new
%
