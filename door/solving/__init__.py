"""The solver at work for the door: its process pool, winnable deals, the deal of the day."""
