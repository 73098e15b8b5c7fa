import sys


def is_palindrome(s, i, j):
    while i < j:
        if s[i] != s[j]:
            return False
        i += 1
        j -= 1
    return True


def almost(s):
    i, j = 0, len(s) - 1
    while i < j:
        if s[i] != s[j]:
            return is_palindrome(s, i + 1, j) or is_palindrome(s, i, j - 1)
        i += 1
        j -= 1
    return True


lines = sys.stdin.read().split()
print("\n".join("YES" if almost(s) else "NO" for s in lines[1:1 + int(lines[0])]))
