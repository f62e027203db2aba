! IdentitySet: its comment, then its instance and class methods.

doit
IdentitySet comment: 'A set that compares its elements with == (identity).'.
true
%

category: 'Private'
method: IdentitySet
_indexOf: anObject
	"As Set>>_indexOf:, by identity."
	| n index stored |
	n := buckets size.
	index := anObject identityHash \\ 16r3FFFFFFF * 40503 \\ n + 1.
	[(stored := buckets at: index) == nil or: [stored == anObject]]
		whileFalse: [index := index \\ n + 1].
	^ index
%
