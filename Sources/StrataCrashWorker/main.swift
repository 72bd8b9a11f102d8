import StrataLog
print("worker")
