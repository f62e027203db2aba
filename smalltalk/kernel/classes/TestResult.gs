! TestResult: its comment, then its instance and class methods.

doit
TestResult comment: 'What running tests answers: the tests that passed, failed (a TestFailure) and
ended with an error.'.
true
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

category: 'Instance Creation'
classmethod: TestResult
new
	^ self basicNew _initialize
%
