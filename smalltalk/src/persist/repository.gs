! Methods a repository adds to the kernel when it is created: the transaction
! messages that need the store (primitives 380..399, answered by src/persist/)
! and AllUsers, the repository's users. Filed in once, then committed with the
! kernel as commit 1.

doit
Object subclass: 'UserProfileSet' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals.
true
%

doit
Globals at: #AllUsers put: UserProfileSet new.
true
%

doit
Error subclass: 'SecurityError' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals.
true
%

category: 'Error numbers'
classmethod: SecurityError
_defaultNumber
	"A store into an object this user may not write (a read-only user and a
	shared persistent object); see PERSISTENCE.md."
	^ 2108
%

category: 'transactions'
classmethod: System
continueTransaction
	"Moves the view to the latest commit keeping this session's changes."
	<primitive: 380>
	^ nil
%

category: 'transactions'
classmethod: System
transactionConflicts
	"A SymbolDictionary describing the last commit: #commitResult (#success or
	#failure) and, after a failure, #'Write-Write' with the objects both wrote."
	<primitive: 381>
	^ nil
%

category: 'transactions'
classmethod: System
transactionMode
	<primitive: 382>
	^ #autoBegin
%

category: 'users'
method: UserProfileSet
addNewUserWithId: aUserId password: aPassword
	"Creates a user with its own UserGlobals and symbol list (UserGlobals, Globals,
	Published); it exists for other logins once this session commits."
	<primitive: 383>
	^ ArgumentError new signal: 'user ids and passwords are Strings'
%

category: 'users'
method: UserProfileSet
addNewUserWithId: aUserId password: aPassword commitDisabled: aBoolean
	"As addNewUserWithId:password:, for a read-only user when aBoolean is true."
	<primitive: 384>
	^ ArgumentError new signal: 'user ids and passwords are Strings, the flag a Boolean'
%

category: 'users'
method: UserProfileSet
userIds
	"The ids of every user, an Array of Strings."
	<primitive: 385>
	^ nil
%

category: 'users'
method: UserProfileSet
userWithId: aUserId
	"The UserProfile of that user, or nil."
	<primitive: 386>
	^ nil
%

category: 'users'
method: UserProfileSet
printOn: aStream
	aStream nextPutAll: 'AllUsers'
%
