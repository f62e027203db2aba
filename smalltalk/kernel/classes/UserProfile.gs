! UserProfile: its comment, then its instance and class methods.

doit
UserProfile comment: 'A user of the repository: the user id, the symbol list its sessions resolve
names through, and the dictionaries it may add or remove.'.
true
%

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
