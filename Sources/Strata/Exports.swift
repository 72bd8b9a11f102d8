@_exported import StrataLog
