// Nothing to call: the library acts through its constructor (see StackPreload.c).
