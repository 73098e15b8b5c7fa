import sys

MOD = 10**9 + 7
LIMIT = 2 * 10**5
fact = [1] * (LIMIT + 1)
for i in range(1, LIMIT + 1):
    fact[i] = fact[i - 1] * i % MOD
inv = [1] * (LIMIT + 1)
inv[LIMIT] = pow(fact[LIMIT], MOD - 2, MOD)
for i in range(LIMIT, 0, -1):
    inv[i - 1] = inv[i] * i % MOD
data = sys.stdin.buffer.read().split()
t = int(data[0])
out = []
for q in range(t):
    n, k = int(data[1 + 2 * q]), int(data[2 + 2 * q])
    out.append(0 if k > n else fact[n] * inv[k] % MOD * inv[n - k] % MOD)
print("\n".join(map(str, out)))
