! TestCase: its comment, then its instance and class methods.

doit
TestCase comment: 'SUnit''s test: a subclass defines methods whose selectors start with test;
each runs in its own instance between setUp and tearDown. assert:, deny:,
should:raise: and the like check results.'.
true
%

category: 'Accessing'
method: TestCase
setTestSelector: aSymbol
	testSelector := aSymbol asSymbol
%

category: 'Accessing'
method: TestCase
selector
	^ testSelector
%

category: 'Running'
method: TestCase
setUp
%

category: 'Running'
method: TestCase
tearDown
%

category: 'Running'
method: TestCase
performTest
	self perform: testSelector
%

category: 'Running'
method: TestCase
runCase
	"setUp, the test, and tearDown even when the test ends abnormally; exceptions escape."
	[self setUp.
	 self performTest] ensure: [self tearDown]
%

category: 'Running'
method: TestCase
run
	| result |
	result := TestResult new.
	self run: result.
	^ result
%

category: 'Running'
method: TestCase
run: aResult
	aResult runCase: self
%

category: 'Running'
method: TestCase
debug
	self runCase
%

category: 'Asserting'
method: TestCase
assert: aBoolean
	aBoolean == true ifFalse: [self signalFailure: 'Assertion failed']
%

category: 'Asserting'
method: TestCase
assert: aBoolean description: aString
	aBoolean == true ifFalse: [self signalFailure: aString]
%

category: 'Asserting'
method: TestCase
deny: aBoolean
	aBoolean == false ifFalse: [self signalFailure: 'Denial failed']
%

category: 'Asserting'
method: TestCase
deny: aBoolean description: aString
	aBoolean == false ifFalse: [self signalFailure: aString]
%

category: 'Asserting'
method: TestCase
assert: actual equals: expected
	expected = actual ifFalse: [
		self signalFailure: 'Expected ', expected printString, ' but was ', actual printString]
%

category: 'Asserting'
method: TestCase
deny: actual equals: expected
	expected = actual ifTrue: [
		self signalFailure: 'Expected something other than ', expected printString]
%

category: 'Asserting'
method: TestCase
should: aBlock raise: anExceptionClass
	| raised |
	raised := false.
	aBlock on: anExceptionClass do: [:ex | raised := true. ex return: nil].
	raised ifFalse: [self signalFailure: 'Expected ', anExceptionClass name, ' to be signalled']
%

category: 'Asserting'
method: TestCase
shouldnt: aBlock raise: anExceptionClass
	aBlock on: anExceptionClass do: [:ex |
		self signalFailure: 'Unexpected ', ex class name, ': ', ex description]
%

category: 'Asserting'
method: TestCase
should: aBlock
	self assert: aBlock value
%

category: 'Asserting'
method: TestCase
shouldnt: aBlock
	self deny: aBlock value
%

category: 'Asserting'
method: TestCase
fail
	self signalFailure: 'Test failed'
%

category: 'Asserting'
method: TestCase
signalFailure: aString
	TestFailure new signal: aString
%

category: 'Printing'
method: TestCase
printOn: aStream
	aStream nextPutAll: self class name; nextPutAll: '>>#'; nextPutAll: testSelector
%

category: 'Instance Creation'
classmethod: TestCase
selector: aSymbol
	^ self new setTestSelector: aSymbol
%

category: 'Testing'
classmethod: TestCase
isAbstract
	^ self == TestCase or: [self == GsTestCase]
%

category: 'Accessing'
classmethod: TestCase
testSelectors
	"The receiver's own and inherited unary selectors starting with test, sorted."
	^ ((self allSelectors select: [:each | (each beginsWith: 'test') and: [each numArgs = 0]])
		asSortedCollection: [:a :b | a <= b]) asArray
%

category: 'Building Suites'
classmethod: TestCase
suite
	"Every test of the receiver, or for an abstract class the suites of its subclasses."
	| suite |
	suite := TestSuite named: self name.
	self isAbstract
		ifTrue: [self allSubclasses do: [:each | each isAbstract ifFalse: [suite addTests: each suite tests]]]
		ifFalse: [self testSelectors do: [:each | suite addTest: (self selector: each)]].
	^ suite
%

category: 'Running'
classmethod: TestCase
run: aSymbol
	^ (self selector: aSymbol) run
%

category: 'Running'
classmethod: TestCase
debug: aSymbol
	^ (self selector: aSymbol) debug
%
