! ClassOrganizer: its comment, then its instance and class methods.

doit
ClassOrganizer comment: 'Searches over every class of the symbol list: implementors and senders of a
selector, references to an object, and methods whose source contains a string,
answered in the order GemStone answers them.'.
true
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

category: 'Instance Creation'
classmethod: ClassOrganizer
new
	^ self basicNew _initialize
%
