print("onair")
