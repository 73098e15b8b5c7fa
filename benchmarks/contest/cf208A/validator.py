# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
text = word(r"[A-Z]{1,200}", "1 to 200 uppercase letters")
if not [part for part in text.split("WUB") if part]:
    fail("no word left once every WUB is removed")
end()
