! AbstractDictionary: its comment, then its instance and class methods.

doit
AbstractDictionary comment: 'The abstract superclass of the dictionaries: a collection of values looked up
by key, with the protocol (at:, at:put:, keysAndValuesDo:, removeKey:, ...)
written once for every concrete dictionary.'.
true
%

category: 'Accessing'
method: AbstractDictionary
at: aKey
	^ self at: aKey ifAbsent: [self _errorKeyNotFound: aKey]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey otherwise: aValue
	^ self at: aKey ifAbsent: [aValue]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey ifAbsentPut: aBlock
	^ self at: aKey ifAbsent: [self at: aKey put: aBlock value]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey ifPresent: aBlock
	| value |
	value := self at: aKey ifAbsent: [^ nil].
	^ aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: value]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey ifPresent: presentBlock ifAbsent: absentBlock
	| value |
	value := self at: aKey ifAbsent: [^ absentBlock value].
	^ presentBlock numArgs = 0 ifTrue: [presentBlock value] ifFalse: [presentBlock value: value]
%

category: 'Accessing'
method: AbstractDictionary
associationAt: aKey
	^ self associationAt: aKey ifAbsent: [self _errorKeyNotFound: aKey]
%

category: 'Accessing'
method: AbstractDictionary
keys
	"A Set of the keys, as GemStone answers."
	| result |
	result := Set new.
	self keysDo: [:each | result add: each].
	^ result
%

category: 'Accessing'
method: AbstractDictionary
values
	"An Array of the values."
	| result |
	result := OrderedCollection new.
	self valuesDo: [:each | result add: each].
	^ result asArray
%

category: 'Accessing'
method: AbstractDictionary
associations
	| result |
	result := OrderedCollection new.
	self associationsDo: [:each | result add: each].
	^ result asArray
%

category: 'Accessing'
method: AbstractDictionary
keyAtValue: aValue
	^ self keyAtValue: aValue ifAbsent: [nil]
%

category: 'Accessing'
method: AbstractDictionary
keyAtValue: aValue ifAbsent: aBlock
	self keysAndValuesDo: [:k :v | v = aValue ifTrue: [^ k]].
	^ aBlock value
%

category: 'Accessing'
method: AbstractDictionary
size
	| count |
	count := 0.
	self keysAndValuesDo: [:k :v | count := count + 1].
	^ count
%

category: 'Testing'
method: AbstractDictionary
includesKey: aKey
	self at: aKey ifAbsent: [^ false].
	^ true
%

category: 'Testing'
method: AbstractDictionary
includes: aValue
	self valuesDo: [:each | each = aValue ifTrue: [^ true]].
	^ false
%

category: 'Testing'
method: AbstractDictionary
isDictionary
	^ true
%

category: 'Removing'
method: AbstractDictionary
removeKey: aKey
	^ self removeKey: aKey ifAbsent: [self _errorKeyNotFound: aKey]
%

category: 'Removing'
method: AbstractDictionary
remove: anObject ifAbsent: aBlock
	^ self shouldNotImplement
%

category: 'Adding'
method: AbstractDictionary
add: anAssociation
	self at: anAssociation key put: anAssociation value.
	^ anAssociation
%

category: 'Adding'
method: AbstractDictionary
addAll: aCollection
	aCollection isDictionary
		ifTrue: [aCollection keysAndValuesDo: [:k :v | self at: k put: v]]
		ifFalse: [aCollection do: [:each | self add: each]].
	^ aCollection
%

category: 'Enumerating'
method: AbstractDictionary
keysAndValuesDo: aBlock
	self associationsDo: [:each | aBlock value: each key value: each value]
%

category: 'Enumerating'
method: AbstractDictionary
keysDo: aBlock
	self keysAndValuesDo: [:k :v | aBlock value: k]
%

category: 'Enumerating'
method: AbstractDictionary
valuesDo: aBlock
	self keysAndValuesDo: [:k :v | aBlock value: v]
%

category: 'Enumerating'
method: AbstractDictionary
do: aBlock
	self valuesDo: aBlock
%

category: 'Enumerating'
method: AbstractDictionary
collect: aBlock
	"A Bag of the results of aBlock on each value."
	| result |
	result := Bag new.
	self valuesDo: [:each | result add: (aBlock value: each)].
	^ result
%

category: 'Enumerating'
method: AbstractDictionary
select: aBlock
	"A dictionary of the same class holding the entries whose value satisfies aBlock."
	| result |
	result := self species new.
	self keysAndValuesDo: [:k :v | (aBlock value: v) ifTrue: [result at: k put: v]].
	^ result
%

category: 'Enumerating'
method: AbstractDictionary
reject: aBlock
	| result |
	result := self species new.
	self keysAndValuesDo: [:k :v | (aBlock value: v) ifFalse: [result at: k put: v]].
	^ result
%

category: 'Enumerating'
method: AbstractDictionary
keysSortedSafely
	^ self keys asSortedCollection: [:a :b | a printString <= b printString]
%

category: 'Comparing'
method: AbstractDictionary
= aDictionary
	self == aDictionary ifTrue: [^ true].
	self class == aDictionary class ifFalse: [^ false].
	self size = aDictionary size ifFalse: [^ false].
	self keysAndValuesDo: [:k :v |
		(aDictionary at: k ifAbsent: [^ false]) = v ifFalse: [^ false]].
	^ true
%

category: 'Comparing'
method: AbstractDictionary
hash
	^ self size
%

category: 'Printing'
method: AbstractDictionary
printOn: aStream
	"aDictionary( #a->1, #b->2)"
	self _printGuardedOn: aStream with: [
		self associations
			do: [:each | aStream print: each key; nextPutAll: '->'; print: each value]
			separatedBy: [aStream nextPutAll: ', ']]
%

category: 'JSON'
method: AbstractDictionary
printJsonOn: aStream
	"Keys are written as strings (their displayString unless they are strings)."
	| first |
	first := true.
	aStream nextPut: ${.
	self keysAndValuesDo: [:key :value |
		first ifFalse: [aStream nextPut: $,].
		first := false.
		(key isString ifTrue: [key] ifFalse: [key displayString]) printJsonOn: aStream.
		aStream nextPut: $:.
		value printJsonOn: aStream].
	aStream nextPut: $}
%
