! UserProfile and SymbolList: name resolution over the symbol list (objectNamed:, resolveSymbol:, dictionaryAndSymbolOf:, names) and adding and removing dictionaries; growable Array protocol (add:, insertObject:at:, removeIndex:).

! ------------------------------------------------- growing Arrays in place

category: 'Private'
method: ArrayedCollection
_basicSize: anInteger
	"Sets the number of indexable slots in place (new slots are nil or 0)."
	<primitive: 29>
	^ ArgumentError new signal: 'cannot resize ', self describeClassName, ' to ', anInteger printString
%

category: 'Adding'
method: Array
add: anObject
	^ self addLast: anObject
%

category: 'Adding'
method: Array
addLast: anObject
	| n |
	n := self size + 1.
	self _basicSize: n.
	^ self at: n put: anObject
%

category: 'Adding'
method: Array
insertObject: anObject at: anIndex
	| n |
	n := self size.
	(anIndex isInteger and: [anIndex between: 1 and: n + 1])
		ifFalse: [^ self _errorIndexOutOfRange: anIndex].
	self _basicSize: n + 1.
	n to: anIndex by: -1 do: [:i | self at: i + 1 put: (self at: i)].
	^ self at: anIndex put: anObject
%

category: 'Removing'
method: Array
removeIndex: anIndex
	| n element |
	n := self size.
	(anIndex isInteger and: [anIndex between: 1 and: n])
		ifFalse: [^ self _errorIndexOutOfRange: anIndex].
	element := self at: anIndex.
	anIndex to: n - 1 do: [:i | self at: i put: (self at: i + 1)].
	self _basicSize: n - 1.
	^ element
%

category: 'Removing'
method: Array
remove: anObject ifAbsent: aBlock
	| index |
	index := self indexOf: anObject.
	index = 0 ifTrue: [^ aBlock value].
	self removeIndex: index.
	^ anObject
%

! ------------------------------------------------------------------ SymbolList

category: 'Accessing'
method: SymbolList
names
	"An Array of the names of the dictionaries, in lookup order."
	| result |
	result := Array new: self size.
	1 to: self size do: [:i | result at: i put: (self at: i) name].
	^ result
%

category: 'Accessing'
method: SymbolList
objectNamed: aSymbol
	"The value of the first binding of aSymbol, or nil."
	| key |
	key := aSymbol asSymbol.
	self do: [:dict | | assoc |
		assoc := dict associationAt: key ifAbsent: [nil].
		assoc == nil ifFalse: [^ assoc value]].
	^ nil
%

category: 'Accessing'
method: SymbolList
resolveSymbol: aSymbol
	"The first binding (an Association) of aSymbol, or nil."
	| key |
	key := aSymbol asSymbol.
	self do: [:dict | | assoc |
		assoc := dict associationAt: key ifAbsent: [nil].
		assoc == nil ifFalse: [^ assoc]].
	^ nil
%

category: 'Accessing'
method: SymbolList
dictionaryAndSymbolOf: anObject
	"{dictionary. key} of the first binding whose value is anObject, or nil."
	self do: [:dict |
		dict associationsDo: [:assoc |
			assoc value == anObject ifTrue: [^ Array with: dict with: assoc key]]].
	^ nil
%

category: 'Accessing'
method: SymbolList
dictionaryNamed: aSymbol
	^ self detect: [:each | each name = aSymbol asSymbol] ifNone: [nil]
%

category: 'Adding'
method: SymbolList
createDictionaryNamed: aSymbol at: anIndex
	| dict |
	dict := SymbolDictionary new.
	dict name: aSymbol asSymbol.
	self insertObject: dict at: anIndex.
	^ dict
%

category: 'Removing'
method: SymbolList
removeDictionaryNamed: aSymbol
	| dict |
	dict := self dictionaryNamed: aSymbol.
	dict == nil ifTrue: [^ LookupError new signal: 'No dictionary named ', aSymbol printString].
	^ self remove: dict
%

category: 'Printing'
method: SymbolList
printOn: aStream
	"aSymbolList( UserGlobals, Globals, Published): dictionaries print as their names (they hold themselves)."
	aStream nextPutAll: self describeClassName; nextPutAll: '( '.
	self do: [:each | aStream nextPutAll: (each name ifNil: ['aSymbolDictionary'])]
		separatedBy: [aStream nextPutAll: ', '].
	aStream nextPut: $)
%

! ----------------------------------------------------------------- UserProfile

category: 'Accessing'
method: UserProfile
userId
	^ userId
%

category: 'Accessing'
method: UserProfile
symbolList
	^ symbolList
%

category: 'Accessing'
method: UserProfile
objectNamed: aSymbol
	^ symbolList objectNamed: aSymbol
%

category: 'Accessing'
method: UserProfile
resolveSymbol: aSymbol
	^ symbolList resolveSymbol: aSymbol
%

category: 'Accessing'
method: UserProfile
dictionaryAndSymbolOf: anObject
	^ symbolList dictionaryAndSymbolOf: anObject
%

category: 'Accessing'
method: UserProfile
dictionaryNames
	^ symbolList names
%

category: 'Dictionaries'
method: UserProfile
createDictionary: aSymbol
	"A new SymbolDictionary named aSymbol; it is not added to the symbol list (see insertDictionary:at:)."
	| dict |
	dict := SymbolDictionary new.
	dict name: aSymbol asSymbol.
	^ dict
%

category: 'Dictionaries'
method: UserProfile
insertDictionary: aSymbolDictionary at: anIndex
	symbolList insertObject: aSymbolDictionary at: anIndex.
	^ aSymbolDictionary
%

category: 'Dictionaries'
method: UserProfile
removeDictionaryAt: anIndex
	^ symbolList removeIndex: anIndex
%

category: 'Dictionaries'
method: UserProfile
removeDictionary: aSymbolDictionary
	^ symbolList remove: aSymbolDictionary
%

category: 'Printing'
method: UserProfile
printOn: aStream
	aStream nextPutAll: 'aUserProfile'
%
