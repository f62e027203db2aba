! TestSuite: its comment, then its instance and class methods.

doit
TestSuite comment: 'A named collection of tests run together into one TestResult.'.
true
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

category: 'Instance Creation'
classmethod: TestSuite
new
	^ self basicNew _initialize
%

category: 'Instance Creation'
classmethod: TestSuite
named: aString
	^ self new name: aString; yourself
%
