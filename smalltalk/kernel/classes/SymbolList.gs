! SymbolList: its comment, then its instance and class methods.

doit
SymbolList comment: 'A user''s list of symbol dictionaries, searched in order to resolve a global
name (objectNamed:, resolveSymbol:).'.
true
%

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
