! The classes the kernel adds to those the bootstrap creates (collections, streams, ClassOrganizer, JsonParser, SUnit), defined first so every later file can name them.

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

