package doc

// ContinuedSteps is the numbered list that goes on with the procedure
// of list after a note between them, in the same section ("3.
// Configure the project:", "Check that log shows following lines:" and
// the log, then "1. Build the project:", numbered anew): its first
// item's block, or -1. One or two paragraphs may stand between; a
// heading, another list or more prose ends the procedure.
func (d *Page) ContinuedSteps(list int) int {
	last := -1
	for bi := list; bi < len(d.Blocks) && d.Blocks[bi].Passage == d.Blocks[list].Passage; bi++ {
		if blk := &d.Blocks[bi]; blk.Kind == ListItem && blk.List == list {
			last = bi
		}
	}
	if last < 0 {
		return -1
	}
	paras := 0
	for bi := last + 1; bi < len(d.Blocks); bi++ {
		blk := &d.Blocks[bi]
		switch {
		case blk.Passage != d.Blocks[list].Passage:
			return -1
		case blk.Kind == ListItem && blk.List == bi && blk.Ordered && blk.Depth == d.Blocks[list].Depth:
			return bi
		case blk.Kind == ListItem:
			if blk.Depth <= d.Blocks[list].Depth {
				return -1
			}
		default:
			if paras++; paras > 2 {
				return -1
			}
		}
	}
	return -1
}

// notesInSteps sets aside the notes between the parts of a procedure
// (ContinuedSteps): "Check that log shows following lines:" means
// something only between step 3 and step 4, and the procedure is quoted
// whole, not the note alone.
func notesInSteps(d *Page) {
	for bi := range d.Blocks {
		blk := &d.Blocks[bi]
		if blk.Kind != ListItem || blk.List != bi || !blk.Ordered {
			continue
		}
		next := d.ContinuedSteps(bi)
		if next < 0 {
			continue
		}
		for k := bi + 1; k < next; k++ {
			if d.Blocks[k].Kind == Paragraph {
				for _, si := range d.Blocks[k].Sents {
					d.Sents[si].OK = false
				}
			}
		}
	}
}
