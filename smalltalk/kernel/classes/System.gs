! System: its comment, then its instance and class methods.

doit
System comment: 'The session''s system services on its class side: the transaction
(commitTransaction, abortTransaction, needsCommit, transactionConflicts), the
user profile, the stone''s name, the session number and the clock.'.
true
%

category: 'Session'
classmethod: System
myUserProfile
	<primitive: 310>
	^ nil
%

category: 'Session'
classmethod: System
stoneName
	<primitive: 311>
	^ nil
%

category: 'Session'
classmethod: System
session
	<primitive: 312>
	^ nil
%

category: 'Session'
classmethod: System
commitTransaction
	<primitive: 313>
	^ nil
%

category: 'Session'
classmethod: System
abortTransaction
	<primitive: 314>
	^ nil
%

category: 'Session'
classmethod: System
inTransaction
	<primitive: 315>
	^ nil
%

category: 'Session'
classmethod: System
needsCommit
	<primitive: 316>
	^ nil
%

category: 'Session'
classmethod: System
millisecondClockValue
	<primitive: 317>
	^ nil
%

category: 'Session'
classmethod: System
_gcNow
	<primitive: 318>
	^ nil
%

category: 'Session'
classmethod: System
beginTransaction
	^ true
%

category: 'Session'
classmethod: System
continueTransaction
	^ true
%

category: 'Session'
classmethod: System
transactionMode
	^ #autoBegin
%

category: 'Session'
classmethod: System
myUserProfile: ignored
	^ self myUserProfile
%
