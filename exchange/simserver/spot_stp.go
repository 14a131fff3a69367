package simserver

import (
	"github.com/spotbot/spotbot/exchange"
)

// routeSTP installs the self-trade prevention group endpoints. Only the
// master account may use them (spec section 8); another account's key is
// refused with 26, operation not allowed.
func (s *Server) routeSTP() {
	h := s.handlers
	h[exchange.EpCreateSTPGroup] = s.masterOnly(s.createSTPGroup)
	h[exchange.EpListSTPGroups] = s.masterOnly(s.listSTPGroups)
	h[exchange.EpDeleteSTPGroup] = s.masterOnly(s.deleteSTPGroup)
	h[exchange.EpAddSTPGroupUID] = s.masterOnly(s.addSTPGroupUIDs)
	h[exchange.EpRemoveSTPGroupUID] = s.masterOnly(s.removeSTPGroupUIDs)
}

func (s *Server) masterOnly(h handler) handler {
	return func(r *request) (any, *apiError) {
		if r.key.UID != s.x.MasterUID() {
			return nil, badParam(exchange.CodeOperationNotAllowed, "STP groups are for the master account only")
		}
		return h(r)
	}
}

func (s *Server) createSTPGroup(r *request) (any, *apiError) {
	name, perr := r.p.required("tradeGroupName")
	if perr != nil {
		return nil, perr
	}
	g, err := s.x.CreateSTPGroup(name)
	if err != nil {
		return nil, simErr(err)
	}
	return envelope(r.now, toGroupWire(g, false)), nil
}

func (s *Server) listSTPGroups(r *request) (any, *apiError) {
	name, perr := r.p.required("tradeGroupName")
	if perr != nil {
		return nil, perr
	}
	gs := s.x.STPGroups(name)
	out := make([]groupWire, len(gs))
	for i, g := range gs {
		out[i] = toGroupWire(g, true)
	}
	return envelope(r.now, out), nil
}

func (s *Server) deleteSTPGroup(r *request) (any, *apiError) {
	id, perr := r.p.required("tradeGroupId")
	if perr != nil {
		return nil, perr
	}
	if err := s.x.DeleteSTPGroup(id); err != nil {
		return nil, simErr(err)
	}
	return envelope(r.now, true), nil
}

func (s *Server) addSTPGroupUIDs(r *request) (any, *apiError) {
	uids, perr := uidList(r.p)
	if perr != nil {
		return nil, perr
	}
	id, perr := r.p.required("tradeGroupId")
	if perr != nil {
		return nil, perr
	}
	g, err := s.x.AddSTPGroupUIDs(id, uids)
	if err != nil {
		return nil, simErr(err)
	}
	return envelope(r.now, toGroupWire(g, true)), nil
}

func (s *Server) removeSTPGroupUIDs(r *request) (any, *apiError) {
	uids, perr := uidList(r.p)
	if perr != nil {
		return nil, perr
	}
	id, perr := r.p.required("tradeGroupId")
	if perr != nil {
		return nil, perr
	}
	if err := s.x.RemoveSTPGroupUIDs(id, uids); err != nil {
		return nil, simErr(err)
	}
	return envelope(r.now, true), nil
}
