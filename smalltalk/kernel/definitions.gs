! The class-definition protocol and the classes the kernel adds to the ones the
! bootstrap makes (collections, streams, ClassOrganizer, JsonParser, SUnit).
! This file loads first: a class must exist before any method naming it
! compiles, and defining one needs these few methods of Class and Behavior;
! every class then has a file of its own under classes/, its comment first.

category: 'Accessing'
method: Behavior
comment: aString
	<primitive: 57>
	^ self _primitiveFailed: #comment:
%

category: 'Subclass Creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #pointer
%

category: 'Subclass Creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: #() format: #pointer
%

category: 'Subclass Creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: #() poolDictionaries: pools inDictionary: aDictionary options: #() format: #pointer
%

category: 'Subclass Creation'
method: Class
indexableSubclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #indexable
%

category: 'Subclass Creation'
method: Class
indexableSubclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: #() format: #indexable
%

category: 'Subclass Creation'
method: Class
indexableSubclass: aString instVarNames: anArrayOfIvars classVars: classVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: #() poolDictionaries: pools inDictionary: aDictionary options: #() format: #indexable
%

category: 'Subclass Creation'
method: Class
byteSubclass: aString classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options
	^ self _subclass: aString instVarNames: #() classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #bytes
%

category: 'Subclass Creation'
method: Class
byteSubclass: aString classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: #() classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: #() format: #bytes
%

category: 'Subclass Creation'
method: Class
byteSubclass: aString classVars: classVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: #() classVars: classVarNames classInstVars: #() poolDictionaries: pools inDictionary: aDictionary options: #() format: #bytes
%

category: 'Subclass Creation'
method: Class
subclass: aString
	^ self _subclass: aString instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #() format: #pointer
%

category: 'Subclass Creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: aDictionary options: #() format: #pointer
%

category: 'Private'
method: Class
_subclass: aString instVarNames: ivars classVars: cvars classInstVars: civars poolDictionaries: pools inDictionary: aDictionary options: options format: aFormat
	<primitive: 61>
	^ ArgumentTypeError new signal: 'invalid class definition arguments'
%

category: 'Private'
method: Class
_subclass: aString instVarNames: ivars classVars: cvars classInstVars: civars poolDictionaries: pools inDictionary: aDictionary options: options format: aFormat newVersionOf: oldClass
	<primitive: 80>
	^ ArgumentTypeError new signal: 'invalid class definition arguments'
%

category: 'Subclass Creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary newVersionOf: oldClass description: aDescription options: options
	"A new version of oldClass (nil: of the class aDictionary binds to aString, if any), in
	 its class history whatever its name, sharing its class variables."
	| cls |
	cls := self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #pointer newVersionOf: oldClass.
	aDescription == nil ifFalse: [cls comment: aDescription].
	^ cls
%

category: 'Subclass Creation'
method: Class
indexableSubclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary newVersionOf: oldClass description: aDescription options: options
	| cls |
	cls := self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #indexable newVersionOf: oldClass.
	aDescription == nil ifFalse: [cls comment: aDescription].
	^ cls
%

category: 'Subclass Creation'
method: Class
byteSubclass: aString classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary newVersionOf: oldClass description: aDescription options: options
	| cls |
	cls := self _subclass: aString instVarNames: #() classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #bytes newVersionOf: oldClass.
	aDescription == nil ifFalse: [cls comment: aDescription].
	^ cls
%

doit
SequenceableCollection subclass: 'OrderedCollection'
	instVarNames: #( array firstIndex lastIndex)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
SequenceableCollection subclass: 'Interval'
	instVarNames: #( from to by)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
Collection subclass: 'UnorderedCollection'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
AbstractDictionary subclass: 'Dictionary'
	instVarNames: #( tally buckets)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
OrderedCollection subclass: 'SortedCollection'
	instVarNames: #( sortBlock)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
Object subclass: 'GsProcess'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
UnorderedCollection subclass: 'Set'
	instVarNames: #( tally buckets)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
UnorderedCollection subclass: 'Bag'
	instVarNames: #( counts)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
Dictionary subclass: 'IdentityDictionary'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
Set subclass: 'IdentitySet'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
Object subclass: 'Stream'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
Stream subclass: 'PositionableStream'
	instVarNames: #( collection position readLimit)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
PositionableStream subclass: 'ReadStream'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
PositionableStream subclass: 'WriteStream'
	instVarNames: #( writeLimit)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
WriteStream subclass: 'ReadWriteStream'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
Object subclass: 'ClassOrganizer'
	instVarNames: #( classes environmentId)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
Error subclass: 'UserDefinedError'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
Object subclass: 'JsonParser'
	instVarNames: #( stream)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
Object subclass: 'TestCase'
	instVarNames: #( testSelector)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
Object subclass: 'TestSuite'
	instVarNames: #( name tests)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
Object subclass: 'TestResult'
	instVarNames: #( passed failures errors)
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%

doit
TestCase subclass: 'GsTestCase'
	instVarNames: #()
	classVars: #()
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: Globals
	options: #().
true
%
