! Reflection the tools use: Behavior printing and queries (allSubclasses, sortedSelectorsIn:, compiledMethodAt: forms, isSubclassOf:), GsNMethod printing, fileOutClass in topaz format, and ClassOrganizer (implementorsOf:, sendersOf:, referencesToObject:, substringSearch:ignoreCase:, allSuperclassesOf:, subclassesOf:).

! -------------------------------------------------------------------- Behavior

category: 'Printing'
method: Behavior
printOn: aStream
	aStream nextPutAll: self name
%

category: 'Printing'
method: Metaclass
printOn: aStream
	aStream nextPutAll: self thisClass name; nextPutAll: ' class'
%

category: 'Testing'
method: Behavior
isBehavior
	^ true
%

category: 'Testing'
method: Class
isClass
	^ true
%

category: 'Testing'
method: Behavior
isSubclassOf: aClass
	"Whether the receiver is aClass or inherits from it."
	^ self == aClass or: [self inheritsFrom: aClass]
%

category: 'Testing'
method: Behavior
includesCategory: aCategory
	^ self categoryNames includes: aCategory asSymbol
%

category: 'Accessing'
method: Behavior
allSubclasses
	"Every class below the receiver, nearest first."
	| result queue |
	result := OrderedCollection new.
	queue := OrderedCollection withAll: self subclasses.
	[queue isEmpty] whileFalse: [| next |
		next := queue removeFirst.
		result add: next.
		queue addAll: next subclasses].
	^ result asArray
%

category: 'Accessing'
method: Behavior
withAllSubclasses
	^ (Array with: self) , self allSubclasses
%

category: 'Accessing'
method: Behavior
withAllSuperclasses
	^ (Array with: self) , self allSuperclasses
%

category: 'Accessing'
method: Behavior
allSelectors
	"The selectors the receiver's instances understand, inherited ones included."
	| result class |
	result := IdentitySet new.
	class := self.
	[class == nil] whileFalse: [
		result addAll: class selectors.
		class := class superclass].
	^ result
%

category: 'Accessing'
method: Behavior
sortedSelectors
	^ (self selectors asSortedCollection: [:a :b | a <= b]) asArray
%

category: 'Accessing'
method: Behavior
sortedSelectorsIn: aCategory
	^ ((self selectorsIn: aCategory) asSortedCollection: [:a :b | a <= b]) asArray
%

category: 'Accessing'
method: Behavior
categoryOfSelector: aSelector environmentId: anInteger
	^ self categoryOfSelector: aSelector
%

category: 'Accessing'
method: Behavior
_compiledMethodAtOrNil: aSelector
	<primitive: 50>
	^ nil
%

category: 'Accessing'
method: Behavior
compiledMethodAt: aSelector
	"The method for aSelector defined in the receiver itself; a LookupError when there is none."
	^ self compiledMethodAt: aSelector otherwise: [
		LookupError new signal: 'No method for #', aSelector, ' in ', self printString]
%

category: 'Accessing'
method: Behavior
compiledMethodAt: aSelector otherwise: aBlockOrValue
	| method |
	method := self _compiledMethodAtOrNil: aSelector.
	method == nil ifFalse: [^ method].
	^ aBlockOrValue value
%

category: 'Accessing'
method: Behavior
compiledMethodAt: aSelector environmentId: anInteger
	^ self compiledMethodAt: aSelector
%

category: 'Accessing'
method: Behavior
compiledMethodAt: aSelector environmentId: anInteger otherwise: aBlockOrValue
	^ self compiledMethodAt: aSelector otherwise: aBlockOrValue
%

category: 'Accessing'
method: Behavior
includesSelector: aSelector environmentId: anInteger
	^ self includesSelector: aSelector
%

category: 'Accessing'
method: Behavior
whichClassIncludesSelector: aSelector
	| class |
	class := self.
	[class == nil] whileFalse: [
		(class includesSelector: aSelector) ifTrue: [^ class].
		class := class superclass].
	^ nil
%

category: 'Accessing'
method: Behavior
canUnderstand: aSelector
	^ (self whichClassIncludesSelector: aSelector) ~~ nil
%

category: 'Accessing'
method: Behavior
methodsDo: aBlock
	"Evaluates aBlock with each method defined in the receiver, in selector order."
	self sortedSelectors do: [:each | aBlock value: (self compiledMethodAt: each)]
%

! ------------------------------------------------------------------ Filing out

category: 'Filing out'
method: Behavior
_homeDictionaryName
	"The name of the first dictionary of the symbol list that binds the receiver under its own name."
	System myUserProfile symbolList do: [:dict |
		(dict at: self name asSymbol ifAbsent: [nil]) == self ifTrue: [^ dict name]].
	^ #UserGlobals
%

category: 'Filing out'
method: Behavior
_fileOutNames: anArray on: aStream
	aStream nextPutAll: '#('.
	anArray do: [:each | aStream space; nextPutAll: each].
	aStream nextPut: $)
%

category: 'Filing out'
method: Class
fileOutDefinitionOn: aStream
	"The subclass-creation message that defines the receiver, in GemStone's layout (no category)."
	aStream nextPutAll: (self superclass == nil ifTrue: ['nil'] ifFalse: [self superclass name]);
		nextPutAll: (self isBytes
			ifTrue: [' byteSubclass: ']
			ifFalse: [self isIndexable ifTrue: [' indexableSubclass: '] ifFalse: [' subclass: ']]);
		print: self name asString; lf.
	self isBytes ifFalse: [
		aStream nextPutAll: '  instVarNames: '.
		self _fileOutNames: self instVarNames on: aStream.
		aStream lf].
	aStream nextPutAll: '  classVars: '.
	self _fileOutNames: self classVarNames on: aStream.
	aStream lf; nextPutAll: '  classInstVars: '.
	self _fileOutNames: self class instVarNames on: aStream.
	aStream lf; nextPutAll: '  poolDictionaries: '.
	self _fileOutNames: (self sharedPools collect: [:each | each name]) on: aStream.
	aStream lf; nextPutAll: '  inDictionary: '; nextPutAll: self _homeDictionaryName; lf;
		nextPutAll: '  options: #()'; lf
%

category: 'Filing out'
method: Behavior
fileOutMethod: aSelector on: aStream
	"One method as a topaz chunk: category, method:/classmethod:, source, %."
	| method |
	method := self compiledMethodAt: aSelector.
	aStream nextPutAll: 'category: '; print: (self categoryOfSelector: aSelector) asString; lf;
		nextPutAll: (self isMeta ifTrue: ['classmethod: '] ifFalse: ['method: ']);
		nextPutAll: self thisClass name; lf;
		nextPutAll: method sourceString; lf;
		nextPut: $%; lf
%

category: 'Filing out'
method: Behavior
fileOutMethod: aSelector
	| stream |
	stream := WriteStream on: String new.
	self fileOutMethod: aSelector on: stream.
	^ stream contents
%

category: 'Filing out'
method: Behavior
_fileOutMethodsOn: aStream
	"Every method of the receiver in selector order, each with its category."
	self sortedSelectors do: [:selector | self fileOutMethod: selector on: aStream]
%

category: 'Filing out'
method: Class
_fileOutBanner: aString on: aStream
	"! ------------------- Class definition for Foo"
	aStream nextPutAll: '! ------------------- '; nextPutAll: aString; space; nextPutAll: self name; lf
%

category: 'Filing out'
method: Class
fileOutClassOn: aStream
	"GemStone's file-out layout: the definition, comment and category doits, the removal of
	 existing methods, then class and instance methods in selector order."
	aStream nextPutAll: 'set compile_env: 0'; lf.
	self _fileOutBanner: 'Class definition for' on: aStream.
	aStream nextPutAll: 'expectvalue /Class'; lf; nextPutAll: 'doit'; lf.
	self fileOutDefinitionOn: aStream.
	aStream lf; nextPut: $%; lf.
	self comment == nil ifFalse: [
		aStream nextPutAll: 'expectvalue /Class'; lf; nextPutAll: 'doit'; lf;
			nextPutAll: self name; nextPutAll: ' comment: '; lf;
			print: self comment asString; lf;
			nextPut: $%; lf].
	self category == nil ifFalse: [
		aStream nextPutAll: 'expectvalue /Class'; lf; nextPutAll: 'doit'; lf;
			nextPutAll: self name; nextPutAll: ' category: '; print: self category asString; lf;
			nextPut: $%; lf].
	self _fileOutBanner: 'Remove existing behavior from' on: aStream.
	aStream nextPutAll: 'removeallmethods '; nextPutAll: self name; lf;
		nextPutAll: 'removeallclassmethods '; nextPutAll: self name; lf.
	self class selectors isEmpty ifFalse: [
		self _fileOutBanner: 'Class methods for' on: aStream.
		self class _fileOutMethodsOn: aStream].
	self selectors isEmpty ifFalse: [
		self _fileOutBanner: 'Instance methods for' on: aStream.
		self _fileOutMethodsOn: aStream]
%

category: 'Filing out'
method: Class
fileOutClass
	"The receiver's definition and methods as topaz input that files them back in."
	| stream |
	stream := WriteStream on: String new.
	self fileOutClassOn: stream.
	^ stream contents
%

! ------------------------------------------------------------------- GsNMethod

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

! -------------------------------------------------------------- ClassOrganizer

category: 'Instance creation'
classmethod: ClassOrganizer
new
	^ self basicNew _initialize
%

category: 'Private'
method: ClassOrganizer
_initialize
	environmentId := 0.
	classes := self _classesInSymbolList
%

category: 'Private'
method: ClassOrganizer
_classesInSymbolList
	"The classes bound in the session's symbol list, each once, sorted by name in code-point
	 order; classes sharing a name keep the order they were first met in (symbol list order,
	 then each dictionary's). Unbound classes are not searched. The primitive answers the
	 same Array without running Smalltalk."
	| found seen |
	<primitive: 360>
	found := OrderedCollection new.
	seen := IdentitySet new.
	System myUserProfile symbolList do: [:dict |
		dict valuesDo: [:each |
			(each isBehavior and: [each isMeta not and: [(seen includes: each) not]])
				ifTrue: [seen add: each. found add: each]]].
	"Sorted as name -> class pairs so each comparison reads two keys rather than asking two
	 classes for their names; the merge sort is stable."
	^ ((found asArray collect: [:each | each name -> each])
		_asArraySortedBy: [:a :b | a key <= b key]) collect: [:each | each value]
%

category: 'Accessing'
method: ClassOrganizer
classes
	^ classes
%

category: 'Accessing'
method: ClassOrganizer
environmentId
	^ environmentId
%

category: 'Accessing'
method: ClassOrganizer
environmentId: anInteger
	environmentId := anInteger
%

category: 'Private'
method: ClassOrganizer
_methodsSuchThat: aBlock
	"Every method of the searched classes (instance side, then class side) satisfying aBlock."
	^ self _methodsOf: classes suchThat: aBlock
%

category: 'Private'
method: ClassOrganizer
_methodsOf: anArray suchThat: aBlock
	"Every method of the classes of anArray (instance side, then class side) satisfying aBlock."
	| result |
	result := OrderedCollection new.
	anArray do: [:class |
		self _methodsOf: class suchThat: aBlock into: result.
		self _methodsOf: class class suchThat: aBlock into: result].
	^ result asArray
%

category: 'Private'
method: ClassOrganizer
_methodsOf: aBehavior suchThat: aBlock into: aCollection
	"Adds to aCollection the methods of aBehavior satisfying aBlock, in selector order. The
	 test runs in the unsorted order of #selectors and only the matching selectors are sorted,
	 so a search that matches little sorts little."
	| selectors matching count |
	selectors := aBehavior selectors.
	matching := nil.
	count := 0.
	1 to: selectors size do: [:i | | selector |
		selector := selectors at: i.
		(aBlock value: (aBehavior _compiledMethodAtOrNil: selector)) ifTrue: [
			matching == nil ifTrue: [matching := Array new: selectors size].
			matching at: (count := count + 1) put: selector]].
	count = 0 ifTrue: [^ self].
	count > 24
		ifTrue: [matching := (matching copyFrom: 1 to: count) _asArraySortedBy: [:a :b | a <= b]]
		ifFalse: [self _sortSymbols: matching size: count].
	1 to: count do: [:i | aCollection add: (aBehavior _compiledMethodAtOrNil: (matching at: i))]
%

category: 'Private'
method: ClassOrganizer
_sortSymbols: anArray size: count
	"Sorts the first count elements of anArray in place, in code-point order (the order of
	 Behavior>>sortedSelectors). An insertion sort with no sort block, for the few selectors
	 a class usually matches; longer runs go to the merge sort."
	2 to: count do: [:i | | item j |
		item := anArray at: i.
		j := i - 1.
		[j >= 1 and: [(anArray at: j) > item]] whileTrue: [
			anArray at: j + 1 put: (anArray at: j).
			j := j - 1].
		anArray at: j + 1 put: item]
%

category: 'Private'
method: ClassOrganizer
_offsetsOf: aString in: methods ignoreCase: aBoolean
	^ methods collect: [:each | each sourceString _findString: aString startingAt: 1 ignoreCase: aBoolean]
%

category: 'Searching'
method: ClassOrganizer
implementorsOf: aSelector
	"The methods named aSelector, as an Array of GsNMethods."
	^ self _implementorsOf: aSelector asSymbol in: classes
%

category: 'Private'
method: ClassOrganizer
_implementorsOf: aSymbol in: anArray
	"The methods named aSymbol of the classes of anArray, each class's instance side then
	 class side. The primitive answers the same Array without running Smalltalk."
	| result |
	<primitive: 361>
	result := OrderedCollection new.
	anArray do: [:class |
		(Array with: class with: class class) do: [:behavior |
			(behavior includesSelector: aSymbol)
				ifTrue: [result add: (behavior compiledMethodAt: aSymbol)]]].
	^ result asArray
%

category: 'Searching'
method: ClassOrganizer
sendersOf: aSelector
	"A pair: the Array of methods sending aSelector, and the Array of the offsets of its first keyword in their sources."
	| selector |
	selector := aSelector asSymbol.
	^ self _sendersOf: selector keyword: selector keywords first in: classes
%

category: 'Private'
method: ClassOrganizer
_sendersOf: aSymbol keyword: aString in: anArray
	"sendersOf: over the classes of anArray: the methods holding aSymbol among their literals
	 (sent selectors included) and the offset of aString in each one's source. The primitive
	 answers the same pair without running Smalltalk."
	| methods |
	<primitive: 362>
	methods := self _methodsOf: anArray suchThat: [:method | method _hasLiteral: aSymbol].
	^ Array with: methods with: (self _offsetsOf: aString in: methods ignoreCase: false)
%

category: 'Searching'
method: ClassOrganizer
referencesToObject: anObject
	"The methods referring to anObject (typically a class or a global's value), as an Array."
	^ self _referencesToObject: anObject in: classes
%

category: 'Private'
method: ClassOrganizer
_referencesToObject: anObject in: anArray
	"referencesToObject: over the classes of anArray. The primitive answers the same Array
	 without running Smalltalk."
	<primitive: 363>
	^ self _methodsOf: anArray suchThat: [:method | method _refersTo: anObject]
%

category: 'Searching'
method: ClassOrganizer
referencesToLiteral: aLiteral
	"A pair: the methods holding aLiteral among their literals, and the offsets of its printString in their sources."
	| methods |
	methods := self _methodsSuchThat: [:method | method _refersToLiteral: aLiteral].
	^ Array with: methods with: (self _offsetsOf: aLiteral printString in: methods ignoreCase: false)
%

category: 'Searching'
method: ClassOrganizer
substringSearch: aString ignoreCase: aBoolean
	"A pair: the methods whose source contains aString, and the offset of its first occurrence in each."
	^ self _substringSearch: aString ignoreCase: aBoolean in: classes
%

category: 'Private'
method: ClassOrganizer
_substringSearch: aString ignoreCase: aBoolean in: anArray
	"substringSearch:ignoreCase: over the classes of anArray. The primitive answers the same
	 pair without running Smalltalk."
	| methods |
	<primitive: 364>
	methods := self _methodsOf: anArray suchThat: [:method |
		(method sourceString _findString: aString startingAt: 1 ignoreCase: aBoolean) > 0].
	^ Array with: methods with: (self _offsetsOf: aString in: methods ignoreCase: aBoolean)
%

category: 'Searching'
method: ClassOrganizer
substringSearch: aString
	^ self substringSearch: aString ignoreCase: false
%

category: 'Hierarchy'
method: ClassOrganizer
allSuperclassesOf: aClass
	"The superclasses of aClass, root (Object) first."
	^ aClass allSuperclasses reverse
%

category: 'Hierarchy'
method: ClassOrganizer
subclassesOf: aClass
	"The direct subclasses of aClass bound in the symbol list, by name."
	^ classes select: [:each | each superclass == aClass]
%

category: 'Hierarchy'
method: ClassOrganizer
allSubclassesOf: aClass
	"Every class below aClass bound in the symbol list, by name."
	^ classes select: [:each | each inheritsFrom: aClass]
%

! ------------------------------------------------------------------- Compiling

category: 'Compiling'
method: Behavior
compileMethod: sourceString dictionaries: aSymbolList category: aCategory
	"Compiles and installs a method. Answers nil, or, when the source does not compile, the
	 Array of error tuples {number. offset. text. nil. symbol} (the method is not installed)."
	^ [self compileMethod: sourceString dictionaries: aSymbolList category: aCategory environmentId: 0.
	   nil]
		on: CompileError
		do: [:ex | ex return: ex errorDetails]
%

category: 'Compiling'
method: Behavior
compileMethod: sourceString
	"Compiles sourceString into the receiver in the default category, with the session's symbol list."
	^ self compileMethod: sourceString
		dictionaries: System myUserProfile symbolList
		category: #'as yet unclassified'
		environmentId: 0
%

category: 'Compiling'
method: Behavior
compileMethod: sourceString category: aCategory
	^ self compileMethod: sourceString
		dictionaries: System myUserProfile symbolList
		category: aCategory
		environmentId: 0
%
