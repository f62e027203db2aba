! Behavior: its comment, then its instance and class methods.

doit
Behavior comment: 'The abstract superclass of classes and metaclasses: the shape of instances,
the method dictionary and its categories, compiling and removing methods,
instance creation, and the queries browsers and tools make (selectors,
sourceCodeAt:, inheritsFrom:, allSuperclasses, definition).'.
true
%

category: 'Instance Creation'
method: Behavior
basicNew
	<primitive: 40>
	^ self _cannotInstantiate
%

category: 'Instance Creation'
method: Behavior
basicNew: aSize
	<primitive: 41>
	^ self _cannotInstantiate
%

category: 'Instance Creation'
method: Behavior
new
	<primitive: 77>
	^ self _cannotInstantiate
%

category: 'Instance Creation'
method: Behavior
new: aSize
	<primitive: 78>
	^ self _cannotInstantiate
%

category: 'Private'
method: Behavior
_cannotInstantiate
	^ ImproperOperation new signal: 'cannot create an instance of ', self name, ' this way'
%

category: 'Accessing'
method: Behavior
name
	<primitive: 42>
	^ self _primitiveFailed: #name
%

category: 'Accessing'
method: Behavior
superclass
	<primitive: 43>
	^ self _primitiveFailed: #superclass
%

category: 'Accessing'
method: Behavior
instVarNames
	<primitive: 44>
	^ self _primitiveFailed: #instVarNames
%

category: 'Accessing'
method: Behavior
allInstVarNames
	<primitive: 45>
	^ self _primitiveFailed: #allInstVarNames
%

category: 'Accessing'
method: Behavior
selectors
	<primitive: 46>
	^ self _primitiveFailed: #selectors
%

category: 'Accessing'
method: Behavior
categoryNames
	<primitive: 52>
	^ self _primitiveFailed: #categoryNames
%

category: 'Accessing'
method: Behavior
subclasses
	<primitive: 55>
	^ self _primitiveFailed: #subclasses
%

category: 'Accessing'
method: Behavior
comment
	<primitive: 56>
	^ self _primitiveFailed: #comment
%

category: 'Accessing'
method: Behavior
category
	<primitive: 58>
	^ self _primitiveFailed: #category
%

category: 'Accessing'
method: Behavior
category: aString
	<primitive: 59>
	^ self _primitiveFailed: #category:
%

category: 'Accessing'
method: Behavior
classVarNames
	<primitive: 60>
	^ self _primitiveFailed: #classVarNames
%

category: 'Accessing'
method: Behavior
isMeta
	<primitive: 62>
	^ self _primitiveFailed: #isMeta
%

category: 'Accessing'
method: Behavior
instSize
	<primitive: 63>
	^ self _primitiveFailed: #instSize
%

category: 'Accessing'
method: Behavior
isBytes
	<primitive: 64>
	^ self _primitiveFailed: #isBytes
%

category: 'Accessing'
method: Behavior
isIndexable
	<primitive: 65>
	^ self _primitiveFailed: #isIndexable
%

category: 'Accessing'
method: Behavior
thisClass
	<primitive: 67>
	^ self _primitiveFailed: #thisClass
%

category: 'Accessing'
method: Behavior
theNonMetaClass
	<primitive: 67>
	^ self _primitiveFailed: #theNonMetaClass
%

category: 'Accessing'
method: Behavior
sharedPools
	<primitive: 68>
	^ self _primitiveFailed: #sharedPools
%

category: 'Accessing'
method: Behavior
allSuperclasses
	<primitive: 72>
	^ self _primitiveFailed: #allSuperclasses
%

category: 'Accessing'
method: Behavior
definition
	<primitive: 74>
	^ self _primitiveFailed: #definition
%

category: 'Accessing'
method: Behavior
classHistory
	<primitive: 75>
	^ self _primitiveFailed: #classHistory
%

category: 'Accessing'
method: Behavior
removeAllMethods
	<primitive: 76>
	^ self _primitiveFailed: #removeAllMethods
%

category: 'Method Dictionary'
method: Behavior
compileMethod: sourceString dictionaries: aSymbolList category: aCategory environmentId: anEnvironmentId
	<primitive: 47>
	^ ArgumentTypeError new signal: 'compileMethod: needs source and category Strings'
%

category: 'Method Dictionary'
method: Behavior
removeSelector: aSelector
	<primitive: 48>
	^ self _primitiveFailed: #removeSelector:
%

category: 'Method Dictionary'
method: Behavior
sourceCodeAt: aSelector
	<primitive: 49>
	^ nil
%

category: 'Method Dictionary'
method: Behavior
includesSelector: aSelector
	<primitive: 51>
	^ false
%

category: 'Method Dictionary'
method: Behavior
selectorsIn: aCategory
	<primitive: 53>
	^ #()
%

category: 'Method Dictionary'
method: Behavior
categoryOfSelector: aSelector
	<primitive: 54>
	^ nil
%

category: 'Method Dictionary'
method: Behavior
lookupSelector: aSelector
	<primitive: 66>
	^ nil
%

category: 'Method Dictionary'
method: Behavior
moveMethod: aSelector toCategory: aCategory
	<primitive: 69>
	^ self _primitiveFailed: #moveMethod:toCategory:
%

category: 'Method Dictionary'
method: Behavior
classVarAt: aName
	<primitive: 70>
	^ LookupError new signal: 'no class variable ', aName printString
%

category: 'Method Dictionary'
method: Behavior
classVarAt: aName put: aValue
	<primitive: 71>
	^ LookupError new signal: 'no class variable ', aName printString
%

category: 'Method Dictionary'
method: Behavior
inheritsFrom: aClass
	<primitive: 73>
	^ false
%

category: 'Method Dictionary'
method: Behavior
compile: sourceString
	^ self compileMethod: sourceString dictionaries: System myUserProfile symbolList category: 'as yet unclassified' environmentId: 0
%

category: 'Testing'
method: Behavior
includesBehavior: aClass
	^ self isSubclassOf: aClass
%

category: 'Printing'
method: Behavior
displayString
	^ self printString
%

category: 'Printing'
method: Behavior
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: Behavior
printOn: aStream
	aStream nextPutAll: self name
%

category: 'Testing'
method: Behavior
isBehavior
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

category: 'Filing Out'
method: Behavior
_homeDictionaryName
	"The name of the first dictionary of the symbol list that binds the receiver under its own name."
	System myUserProfile symbolList do: [:dict |
		(dict at: self name asSymbol ifAbsent: [nil]) == self ifTrue: [^ dict name]].
	^ #UserGlobals
%

category: 'Filing Out'
method: Behavior
_fileOutNames: anArray on: aStream
	aStream nextPutAll: '#('.
	anArray do: [:each | aStream space; nextPutAll: each].
	aStream nextPut: $)
%

category: 'Filing Out'
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

category: 'Filing Out'
method: Behavior
fileOutMethod: aSelector
	| stream |
	stream := WriteStream on: String new.
	self fileOutMethod: aSelector on: stream.
	^ stream contents
%

category: 'Filing Out'
method: Behavior
_fileOutMethodsOn: aStream
	"Every method of the receiver in selector order, each with its category."
	self sortedSelectors do: [:selector | self fileOutMethod: selector on: aStream]
%

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
