! SUnit: TestCase, TestSuite and TestResult (TestFailure is created by the VM).

! -------------------------------------------------------------------- TestCase

category: 'Instance creation'
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

category: 'Building suites'
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

! ------------------------------------------------------------------- TestSuite

category: 'Instance creation'
classmethod: TestSuite
new
	^ self basicNew _initialize
%

category: 'Instance creation'
classmethod: TestSuite
named: aString
	^ self new name: aString; yourself
%

category: 'Private'
method: TestSuite
_initialize
	tests := OrderedCollection new
%

category: 'Accessing'
method: TestSuite
name
	^ name
%

category: 'Accessing'
method: TestSuite
name: aString
	name := aString
%

category: 'Accessing'
method: TestSuite
tests
	^ tests
%

category: 'Accessing'
method: TestSuite
addTest: aTest
	^ tests add: aTest
%

category: 'Accessing'
method: TestSuite
addTests: aCollection
	^ tests addAll: aCollection
%

category: 'Running'
method: TestSuite
run
	| result |
	result := TestResult new.
	self run: result.
	^ result
%

category: 'Running'
method: TestSuite
run: aResult
	tests do: [:each | each run: aResult]
%

! ------------------------------------------------------------------ TestResult

category: 'Instance creation'
classmethod: TestResult
new
	^ self basicNew _initialize
%

category: 'Private'
method: TestResult
_initialize
	passed := OrderedCollection new.
	failures := OrderedCollection new.
	errors := OrderedCollection new
%

category: 'Running'
method: TestResult
runCase: aTestCase
	"Runs one test and files it under passed, failures (a TestFailure) or errors (any other Error)."
	[[aTestCase runCase.
	  passed add: aTestCase]
		on: TestFailure
		do: [:ex | failures add: aTestCase. ex return: nil]]
			on: Error
			do: [:ex | errors add: aTestCase. ex return: nil]
%

category: 'Accessing'
method: TestResult
passed
	^ passed
%

category: 'Accessing'
method: TestResult
failures
	^ failures
%

category: 'Accessing'
method: TestResult
errors
	^ errors
%

category: 'Accessing'
method: TestResult
defects
	^ failures , errors
%

category: 'Accessing'
method: TestResult
runCount
	^ passed size + failures size + errors size
%

category: 'Accessing'
method: TestResult
passedCount
	^ passed size
%

category: 'Accessing'
method: TestResult
failureCount
	^ failures size
%

category: 'Accessing'
method: TestResult
errorCount
	^ errors size
%

category: 'Testing'
method: TestResult
hasPassed
	^ failures isEmpty and: [errors isEmpty]
%

category: 'Printing'
method: TestResult
printOn: aStream
	"3 run, 2 passes, 1 failures, 0 errors"
	aStream print: self runCount; nextPutAll: ' run, ';
		print: self passedCount; nextPutAll: ' passes, ';
		print: self failureCount; nextPutAll: ' failures, ';
		print: self errorCount; nextPutAll: ' errors'
%
